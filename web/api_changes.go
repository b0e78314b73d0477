package web

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
)

// apiChange is a change as the API shows it.
type apiChange struct {
	ID         int64     `json:"id"`
	Site       string    `json:"site"`
	Collection string    `json:"collection"`
	URL        string    `json:"url"`
	Title      string    `json:"title"`
	Kind       string    `json:"kind"`
	At         time.Time `json:"at"`
	Source     string    `json:"source"`
	TextChange string    `json:"text_change"`
	Removed    []string  `json:"removed"`
	Added      []string  `json:"added"`
}

// Pages of changes.
const (
	apiChangesDefault = 50
	apiChangesMax     = 200
)

func badQuery(detail string) error {
	return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: detail}
}

// apiChanges answers a page of the person's changes, newest first. The
// cursor is the last change's time and id: opaque to clients, and a page
// stays where it was while newer changes arrive.
func (s *Server) apiChanges(c echo.Context) error {
	ctx := c.Request().Context()
	u := currentUser(c)
	scope := db.Scope{UserID: u.ID}
	var f db.ChangeFilter
	q := c.QueryParams()
	if id := q.Get("site"); id != "" {
		site, err := s.apiFollowedSite(c, id)
		if err != nil {
			return err
		}
		// A site's changes as this person reads them: their rules too.
		f.SiteID = site.ID
	}
	if k := q.Get("kind"); k != "" {
		for _, kind := range strings.Split(k, ",") {
			switch kind {
			case "created", "updated", "deleted":
				f.Kinds = append(f.Kinds, kind)
			default:
				return badQuery("kind takes created, updated and deleted, separated by commas.")
			}
		}
	}
	for _, t := range []struct {
		name string
		to   *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(t.name); v != "" {
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return badQuery(t.name + " is a date and time such as 2026-11-28T09:30:00Z.")
			}
			*t.to = at
		}
	}
	limit := apiChangesDefault
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > apiChangesMax {
			return badQuery("limit is a number from 1 to 200.")
		}
		limit = n
	}
	var before db.Before
	if v := q.Get("cursor"); v != "" {
		var ok bool
		if before, ok = readCursor(v); !ok {
			return badQuery("This cursor is not one this API gave: pass the \"next\" of the page before, as it was.")
		}
	}
	changes, err := s.store.ScopeChanges(ctx, scope, f, before, limit+1)
	if err != nil {
		return err
	}
	var next *string
	if len(changes) > limit {
		changes = changes[:limit]
		last := changes[limit-1]
		cur := writeCursor(db.Before{At: last.Datetime, ID: last.ID})
		next = &cur
	}
	ids, err := s.publicIDs(c, changes)
	if err != nil {
		return err
	}
	out := make([]apiChange, 0, len(changes))
	for _, ch := range changes {
		v := apiChange{ID: ch.ID, Site: ids[ch.CollectionID][0], Collection: ids[ch.CollectionID][1], URL: ch.URL, Title: ch.Title,
			Kind: ch.Kind, At: apiTime(ch.Datetime), Source: ch.Source, TextChange: ch.TextChange, Removed: []string{}, Added: []string{}}
		if d, ok := feedbuild.TextDiff(ch); ok {
			for _, op := range d.Ops {
				v.Removed = append(v.Removed, op.Del...)
				v.Added = append(v.Added, op.Ins...)
			}
		}
		out = append(out, v)
	}
	return c.JSON(http.StatusOK, map[string]any{"changes": out, "next": next})
}

// publicIDs maps the collections of changes to their site's and their
// own public ids.
func (s *Server) publicIDs(c echo.Context, changes []db.Change) (map[int64][2]string, error) {
	out := map[int64][2]string{}
	ctx := c.Request().Context()
	sites := map[int64]string{}
	for _, ch := range changes {
		if _, ok := out[ch.CollectionID]; ok {
			continue
		}
		col, err := s.store.CollectionByID(ctx, ch.CollectionID)
		if err != nil {
			return nil, err
		}
		if _, ok := sites[col.SiteID]; !ok {
			site, err := s.store.SiteByID(ctx, col.SiteID)
			if err != nil {
				return nil, err
			}
			sites[col.SiteID] = site.PublicID
		}
		out[ch.CollectionID] = [2]string{sites[col.SiteID], col.PublicID}
	}
	return out, nil
}

// writeCursor and readCursor spell a page's end for the next call.
func writeCursor(b db.Before) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(b.At.UnixMicro(), 10) + "." + strconv.FormatInt(b.ID, 10)))
}

func readCursor(s string) (db.Before, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return db.Before{}, false
	}
	at, id, ok := strings.Cut(string(raw), ".")
	micros, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || n <= 0 || micros <= 0 {
		return db.Before{}, false
	}
	return db.Before{At: time.UnixMicro(micros).UTC(), ID: n}, true
}
