package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/notify"
)

// settingsData is the settings page: how a person is told of changes.
type settingsData struct {
	notify.View
	Sites []settingsSite // what a push may be kept to
	Error string
	Field string // the form Error is about: email, push or secret
	// Email and Push are what the person typed, kept when refused.
	Email string
	Push  string
}

type settingsSite struct {
	ID   int64
	Name string
}

// settingsPage shows a person's e-mail digest, push targets and the
// messages that could not be sent.
func (s *Server) settingsPage(c echo.Context) error {
	return s.renderSettings(c, http.StatusOK, settingsData{})
}

func (s *Server) renderSettings(c echo.Context, code int, d settingsData) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	v, err := s.opts.Notify.Settings(ctx, u.ID)
	if err != nil {
		return err
	}
	d.View = v
	if d.Email == "" {
		d.Email = v.Email
		if v.PendingEmail != "" {
			d.Email = v.PendingEmail
		}
	}
	sites, err := s.store.FollowedSites(ctx, u.ID)
	if err != nil {
		return err
	}
	titles, err := s.store.FollowTitles(ctx, u.ID)
	if err != nil {
		return err
	}
	for _, site := range sites {
		name := titles[site.ID]
		if name == "" {
			name = site.Title
		}
		if name == "" {
			name = site.URL
		}
		d.Sites = append(d.Sites, settingsSite{ID: site.ID, Name: name})
	}
	return s.render(c, code, "settings", "Settings", d)
}

// settingsEmail sets the digest's address and schedule; a new address
// gets a confirmation link first.
func (s *Server) settingsEmail(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	n := s.opts.Notify
	if err := n.SetEvery(ctx, u.ID, c.FormValue("every")); err != nil {
		return s.renderSettings(c, http.StatusUnprocessableEntity, settingsData{Error: capitalize(err.Error()) + ".", Field: "email"})
	}
	addr := strings.TrimSpace(c.FormValue("email"))
	v, err := n.Settings(ctx, u.ID)
	if err != nil {
		return err
	}
	done := "settings"
	// With e-mail off the field is disabled and sends nothing: that is
	// no wish to remove the address.
	if n.EmailOn() && addr != v.Email {
		err := n.RequestEmail(ctx, *u, addr)
		switch {
		case errors.Is(err, notify.ErrEmailOff), errors.Is(err, notify.ErrNotAddress):
			return s.renderSettings(c, http.StatusUnprocessableEntity, settingsData{Error: capitalize(err.Error()) + ".", Field: "email", Email: addr})
		case err != nil:
			return err
		case addr != "":
			done = "email-sent"
		}
	}
	return c.Redirect(http.StatusSeeOther, s.abs(notify.SettingsPath)+"?done="+done)
}

// settingsPushAdd adds a notification URL, for everything followed or
// for one site the person follows.
func (s *Server) settingsPushAdd(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	raw := strings.TrimSpace(c.FormValue("url"))
	siteID, _ := strconv.ParseInt(c.FormValue("site"), 10, 64)
	if siteID != 0 {
		if ok, err := s.store.Follows(ctx, u.ID, siteID); err != nil {
			return err
		} else if !ok {
			siteID = -1
		}
	}
	var err error
	if siteID < 0 {
		err = errors.New("you do not follow that site")
	} else {
		_, err = s.opts.Notify.AddPush(ctx, u.ID, raw, siteID)
	}
	if err != nil {
		return s.renderSettings(c, http.StatusUnprocessableEntity, settingsData{Error: addressMessage(err), Field: "push", Push: raw})
	}
	return c.Redirect(http.StatusSeeOther, s.abs(notify.SettingsPath)+"?done=push-added")
}

// settingsPushRemove removes one of the person's push targets.
func (s *Server) settingsPushRemove(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return echo.ErrNotFound
	}
	k, err := s.opts.Notify.RemovePush(c.Request().Context(), currentUser(c).ID, id, "")
	if err != nil {
		return err
	}
	if k == 0 {
		return echo.ErrNotFound
	}
	return c.Redirect(http.StatusSeeOther, s.abs(notify.SettingsPath)+"?done=push-removed")
}

// settingsSecret sets or clears the secret webhooks are signed with.
func (s *Server) settingsSecret(c echo.Context) error {
	secret := c.FormValue("secret")
	if c.FormValue("clear") != "" {
		secret = ""
	}
	if err := s.opts.Notify.SetPushSecret(c.Request().Context(), currentUser(c).ID, secret); err != nil {
		return s.renderSettings(c, http.StatusUnprocessableEntity, settingsData{Error: capitalize(err.Error()) + ".", Field: "secret"})
	}
	return c.Redirect(http.StatusSeeOther, s.abs(notify.SettingsPath)+"?done=secret")
}

// messageData is a page that says one thing and offers a way on.
type messageData struct {
	Heading string
	Message string
	Link    string
	LinkTo  string
}

// emailConfirm confirms an address by the link sent to it; it works
// without signing in, the token being the proof.
// emailConfirmAsk is where a confirmation e-mail's link leads: a button,
// since mail scanners open links, and a GET must not confirm an address
// its owner may never have asked for.
func (s *Server) emailConfirmAsk(c echo.Context) error {
	return s.render(c, http.StatusOK, "confirm", "Confirm your address", confirmData{
		Question: "Send your digest of changes to this address?",
		Explain:  "Someone, most likely you, asked tidings to send its e-mail to the address this link was sent to. Confirm to start; if it was not you, close this page and nothing will be sent.",
		Action:   s.abs("notify/confirm") + "?t=" + url.QueryEscape(c.QueryParam("t")),
		Button:   "Confirm the address",
		Plain:    true,
		Cancel:   s.abs(""),
	})
}

// emailConfirm confirms the address by the token of the link, once the
// person pressed the button of emailConfirmAsk.
func (s *Server) emailConfirm(c echo.Context) error {
	v, err := s.opts.Notify.ConfirmEmail(c.Request().Context(), c.QueryParam("t"))
	if errors.Is(err, notify.ErrBadLink) {
		return s.render(c, http.StatusNotFound, "message", "Confirmation", messageData{
			Heading: "This link does not work", Message: capitalize(err.Error()) + ". Ask for a new one on the settings page.",
			Link: "Settings", LinkTo: s.abs(notify.SettingsPath)})
	}
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, "message", "Confirmed", messageData{
		Heading: "Address confirmed", Message: fmt.Sprintf("Your digest of changes goes to %s, %s.", v.Email, everyText(v.Every)),
		Link: "Settings", LinkTo: s.abs(notify.SettingsPath)})
}

func everyText(every string) string {
	if every == db.EveryOff {
		return "once you choose how often on the settings page"
	}
	return every
}

// unsubscribeConfirm is where a digest's unsubscribe link leads: a
// button, since mail scanners open links, and a GET must not unsubscribe.
func (s *Server) unsubscribeConfirm(c echo.Context) error {
	return s.render(c, http.StatusOK, "confirm", "Unsubscribe", confirmData{
		Question: "Stop the e-mail digest?",
		Explain:  "tidings will send no more digests of changes to this address. You can start them again on the settings page.",
		Action:   s.abs("unsubscribe") + "?t=" + url.QueryEscape(c.QueryParam("t")),
		Button:   "Unsubscribe",
		Cancel:   s.abs(""),
	})
}

// unsubscribe turns the digest off, by the signed token of the link: one
// click in a mail client (RFC 8058) or the button above, signed in or
// not. It is exempt from CSRF checks, the token being the proof.
func (s *Server) unsubscribe(c echo.Context) error {
	_, err := s.opts.Notify.Unsubscribe(c.Request().Context(), c.QueryParam("t"))
	if errors.Is(err, notify.ErrBadLink) {
		return s.render(c, http.StatusNotFound, "message", "Unsubscribe", messageData{
			Heading: "This link does not work", Message: capitalize(err.Error()) + ".",
			Link: "Settings", LinkTo: s.abs(notify.SettingsPath)})
	}
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, "message", "Unsubscribed", messageData{
		Heading: "Unsubscribed", Message: "No more digests will be sent to this address.",
		Link: "Settings", LinkTo: s.abs(notify.SettingsPath)})
}
