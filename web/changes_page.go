package web

import (
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
)

// How much of a site's or a collection's history its page shows at once:
// the page stays short, its feeds in view, and older changes are a link
// away, newest first as in the feeds.
const (
	siteChanges       = 10
	collectionChanges = 15
	// historyRows harvests are shown, historyAll on asking for more.
	historyRows = 5
	historyAll  = 50
)

// pager links a page of changes to the newest ones and the older ones.
type pager struct {
	Older  string // the next page, older changes; "" at the end
	Newest string // the first page; "" on it
}

// changesPage reads the page of changes in scope that the query's before
// names (the newest without it), at most n, and the links to the other
// pages under path. A before that cannot be read is the first page.
func (s *Server) changesPage(c echo.Context, scope db.Scope, n int, path string) ([]db.Change, pager, error) {
	b, ok := parseBefore(c.QueryParam("before"))
	changes, err := s.store.FeedChangesBefore(c.Request().Context(), scope, b, n+1)
	if err != nil {
		return nil, pager{}, err
	}
	var p pager
	if ok {
		p.Newest = path + "#changes"
	}
	if len(changes) > n {
		changes = changes[:n]
		last := changes[n-1]
		p.Older = path + "?before=" + formatBefore(db.Before{At: last.Datetime, ID: last.ID}) + "#changes"
	}
	return changes, p, nil
}

// formatBefore writes a page's bound as the query carries it:
// "<unix nanoseconds>.<id>".
func formatBefore(b db.Before) string {
	return strconv.FormatInt(b.At.UnixNano(), 10) + "." + strconv.FormatInt(b.ID, 10)
}

// parseBefore reads formatBefore's form; ok is false for anything else.
func parseBefore(s string) (db.Before, bool) {
	at, id, found := strings.Cut(s, ".")
	ns, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !found || err1 != nil || err2 != nil || ns <= 0 || n <= 0 {
		return db.Before{}, false
	}
	return db.Before{At: time.Unix(0, ns).UTC(), ID: n}, true
}
