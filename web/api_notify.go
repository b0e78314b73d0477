package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/notify"
)

// apiNotifications is how a person is told of changes, as the API shows
// it: the settings page's content.
type apiNotifications struct {
	Email        string     `json:"email"`
	PendingEmail string     `json:"pending_email"`
	Every        string     `json:"every"`
	EmailOn      bool       `json:"email_on"`
	SecretSet    bool       `json:"push_secret_set"`
	Pushes       []apiPush  `json:"pushes"`
	Trouble      []apiNoted `json:"trouble"`
}

type apiPush struct {
	ID        int64     `json:"id"`
	URL       string    `json:"url"`
	Site      *string   `json:"site"`
	CreatedAt time.Time `json:"created_at"`
}

// apiNoted is a message that could not be sent, or not yet.
type apiNoted struct {
	Kind    string    `json:"kind"`
	Address string    `json:"address"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
	GaveUp  bool      `json:"gave_up"`
}

var errNotifyOff = &apiProblem{status: http.StatusServiceUnavailable, code: "unavailable",
	detail: "This tidings sends no notifications: its operator runs it without them."}

// notifier is the middleware of the notification calls.
func (s *Server) notifier(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.opts.Notify == nil {
			return errNotifyOff
		}
		return next(c)
	}
}

func (s *Server) apiNotificationsOf(c echo.Context) (apiNotifications, error) {
	ctx := c.Request().Context()
	v, err := s.opts.Notify.Settings(ctx, currentUser(c).ID)
	if err != nil {
		return apiNotifications{}, err
	}
	out := apiNotifications{Email: v.Email, PendingEmail: v.PendingEmail, Every: v.Every, EmailOn: v.EmailOn,
		SecretSet: v.PushSecret != "", Pushes: []apiPush{}, Trouble: []apiNoted{}}
	for _, p := range v.Targets {
		ap, err := s.apiPushOf(c, p)
		if err != nil {
			return apiNotifications{}, err
		}
		out.Pushes = append(out.Pushes, ap)
	}
	for _, m := range v.Trouble {
		out.Trouble = append(out.Trouble, apiNoted{Kind: m.Kind, Address: m.Address, At: apiTime(m.CreatedAt), Error: m.Error, GaveUp: m.FailedAt != nil})
	}
	return out, nil
}

func (s *Server) apiPushOf(c echo.Context, p db.PushTarget) (apiPush, error) {
	out := apiPush{ID: p.ID, URL: p.URL, CreatedAt: apiTime(p.CreatedAt)}
	if p.SiteID != 0 {
		site, err := s.store.SiteByID(c.Request().Context(), p.SiteID)
		if err != nil {
			return apiPush{}, err
		}
		out.Site = &site.PublicID
	}
	return out, nil
}

func (s *Server) apiNotifications(c echo.Context) error {
	v, err := s.apiNotificationsOf(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// apiSetNotifications changes what the body names: the digest's schedule,
// its address (a new one is sent a confirmation link first; "" removes
// it) and the webhooks' secret ("" removes it).
func (s *Server) apiSetNotifications(c echo.Context) error {
	var body struct {
		Email      *string `json:"email"`
		Every      *string `json:"every"`
		PushSecret *string `json:"push_secret"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	n := s.opts.Notify
	refused := func(err error) error {
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "settings_refused", detail: capitalize(err.Error()) + "."}
	}
	if body.Every != nil {
		if err := n.SetEvery(ctx, u.ID, *body.Every); errors.Is(err, notify.ErrBadEvery) {
			return refused(err)
		} else if err != nil {
			return err
		}
	}
	if body.PushSecret != nil {
		if err := n.SetPushSecret(ctx, u.ID, *body.PushSecret); err != nil {
			return refused(err)
		}
	}
	if body.Email != nil {
		v, err := n.Settings(ctx, u.ID)
		if err != nil {
			return err
		}
		if *body.Email != v.Email {
			err := n.RequestEmail(ctx, *u, *body.Email)
			if errors.Is(err, notify.ErrEmailOff) || errors.Is(err, notify.ErrNotAddress) {
				return refused(err)
			}
			if err != nil {
				return err
			}
		}
	}
	return s.apiNotifications(c)
}

// apiAddPush adds a notification URL, for everything the person follows
// or one followed site. The same URL for the same sites again is
// answered with the one there is.
func (s *Server) apiAddPush(c echo.Context) error {
	var body struct {
		URL  string  `json:"url"`
		Site *string `json:"site"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	var siteID int64
	if body.Site != nil {
		site, err := s.apiFollowedSite(c, *body.Site)
		if err != nil {
			return err
		}
		siteID = site.ID
	}
	t, err := s.opts.Notify.AddPush(ctx, u.ID, body.URL, siteID)
	if errors.Is(err, notify.ErrPushExists) {
		targets, err := s.store.PushTargets(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, p := range targets {
			if p.URL == body.URL && p.SiteID == siteID {
				ap, err := s.apiPushOf(c, p)
				if err != nil {
					return err
				}
				return c.JSON(http.StatusOK, ap)
			}
		}
	}
	if err != nil {
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "push_refused", detail: addressMessage(err)}
	}
	ap, err := s.apiPushOf(c, t)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, ap)
}

func (s *Server) apiRemovePush(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("push"), 10, 64)
	notFound := &apiProblem{status: http.StatusNotFound, code: "not_found", detail: "You have no notification URL of this id."}
	if err != nil || id <= 0 {
		return notFound
	}
	k, err := s.opts.Notify.RemovePush(c.Request().Context(), currentUser(c).ID, id, "")
	if err != nil {
		return err
	}
	if k == 0 {
		return notFound
	}
	return c.NoContent(http.StatusNoContent)
}
