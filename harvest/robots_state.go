package harvest

import (
	"context"
	"encoding/json"

	"tidings/db"
	"tidings/fetch"
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

// loadRobots gives the client the site's stored robots.txt, unless it
// holds a newer copy, then makes sure a current one is kept: read anew
// when the stored one is older than a day. Every later fetch of the
// harvest, and discovery's Sitemap lines, use that copy.
func loadRobots(ctx context.Context, c *fetch.Client, siteURL string, known map[string]db.FetchState) {
	ru, ok := fetch.RobotsURL(siteURL)
	if !ok {
		return
	}
	if st, ok := known[ru]; ok {
		var m robotsMemo
		if err := json.Unmarshal([]byte(st.Memo), &m); err == nil && m.Status != 0 {
			c.SeedRobots(siteURL, fetch.RobotsCopy{URL: m.URL, Status: m.Status, Reason: m.Reason, Body: m.Body,
				ETag: st.ETag, LastModified: st.LastModified, FetchedAt: st.FetchedAt})
		}
	}
	// An error here is the site's fetches' to report.
	c.Robots(ctx, siteURL)
}

// robotsState returns the fetch state to store for the site's robots.txt
// when the client read it (or had it confirmed) after what known holds.
func robotsState(c *fetch.Client, siteURL string, known map[string]db.FetchState) (db.FetchState, bool) {
	ru, ok := fetch.RobotsURL(siteURL)
	if !ok {
		return db.FetchState{}, false
	}
	r, ok := c.KeptRobots(siteURL)
	if !ok || r.Status >= 500 || !r.FetchedAt.After(known[ru].FetchedAt) {
		return db.FetchState{}, false
	}
	memo, err := json.Marshal(robotsMemo{URL: r.URL, Status: r.Status, Reason: r.Reason, Body: r.Body})
	if err != nil {
		return db.FetchState{}, false
	}
	return db.FetchState{URL: ru, ETag: r.ETag, LastModified: r.LastModified, Memo: string(memo), FetchedAt: r.FetchedAt}, true
}
