package harvest

import (
	"context"
	"encoding/json"
	"net/url"

	"tidings/db"
)

// A site's robots.txt is stored with its fetch state, so that a harvest in
// another process (tidings harvest, a restarted serve) trusts it for the
// same day as serve's memory does, and asks again conditionally after
// that: robots.txt is read at most once per harvest of a site, and an
// unchanged one costs a 304.

// robotsMemo is what the fetch state's memo keeps of a robots.txt.
type robotsMemo struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	Reason string `json:"reason,omitempty"`
	Body   []byte `json:"body,omitempty"`
}

// robotsOrigin returns the cache key and the robots.txt URL of a site's
// root.
func robotsOrigin(siteURL string) (origin, robotsURL string, ok bool) {
	u, err := url.Parse(siteURL)
	if err != nil || u.Host == "" {
		return "", "", false
	}
	canonicalizeHost(u)
	origin = originOf(u)
	return origin, origin + "/robots.txt", true
}

// loadRobots gives the client the site's stored robots.txt, unless it
// holds a newer copy, then makes sure a current one is kept: read anew
// when the stored one is older than a day. Every later fetch of the
// harvest, and discovery's Sitemap lines, use that copy.
func (c *Client) loadRobots(ctx context.Context, siteURL string, known map[string]db.FetchState) {
	origin, ru, ok := robotsOrigin(siteURL)
	if !ok {
		return
	}
	if st, ok := known[ru]; ok {
		var m robotsMemo
		if err := json.Unmarshal([]byte(st.Memo), &m); err == nil && m.Status != 0 {
			e := robotsEntry{url: m.URL, status: m.Status, reason: m.Reason, body: m.Body, etag: st.ETag, lastMod: st.LastModified}
			c.robots.seed(origin, e.parsed(st.FetchedAt))
		}
	}
	// An error here is the site's fetches' to report.
	c.robots.get(ctx, c, origin)
}

// robotsState returns the fetch state to store for the site's robots.txt
// when the client read it (or had it confirmed) after what known holds.
func (c *Client) robotsState(siteURL string, known map[string]db.FetchState) (db.FetchState, bool) {
	origin, ru, ok := robotsOrigin(siteURL)
	if !ok {
		return db.FetchState{}, false
	}
	e, ok := c.robots.peek(origin)
	if !ok || e.status >= 500 || !e.fetched.After(known[ru].FetchedAt) {
		return db.FetchState{}, false
	}
	memo, err := json.Marshal(robotsMemo{URL: e.url, Status: e.status, Reason: e.reason, Body: e.body})
	if err != nil {
		return db.FetchState{}, false
	}
	return db.FetchState{URL: ru, ETag: e.etag, LastModified: e.lastMod, Memo: string(memo), FetchedAt: e.fetched}, true
}
