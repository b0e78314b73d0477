package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/internal/sitemapsite"
)

// baselineSite is a generated site of 201 pages, more than one harvest's
// --page-fetches (100), whose sitemap stamps every lastmod with the build.
func baselineSite(edited bool) map[string]sitemapsite.Page {
	v := map[string]sitemapsite.Page{"/": {Title: "Moths", Text: "Two hundred moths, a page each."}}
	for i := range 200 {
		text := fmt.Sprintf("Moth %d flies at night.\nIts wings are brown with %d spots.", i, i%7)
		if edited && i == 150 {
			text = "Moth 150 flies at night.\nIts wings are pink and yellow: it is the rosy maple moth."
		}
		v[fmt.Sprintf("/m%03d/", i)] = sitemapsite.Page{Title: fmt.Sprintf("Moth %d", i), Text: text}
	}
	return v
}

// exportedLine is a line of `export changes` with the page's text.
type exportedLine struct {
	URL        string `json:"url"`
	Change     string `json:"change"`
	Title      string `json:"title"`
	TextChange string `json:"text_change"`
	Diff       string `json:"diff"`
}

// TestAPageEditedRightAfterTheFollowIsReported: a site of 201 pages whose
// sitemap's every lastmod is the build time; /m150/ is among the pages a
// follow that read 100 of them left unread. The follow answers without
// reading a page and leaves the site due at once; the harvest of the due
// sites (the scheduler's next) reads every page's baseline, at the host's
// pace, past --page-fetches. A page edited right after is then reported,
// with its words, within the harvests the docs promise; nothing else is.
func TestAPageEditedRightAfterTheFollowIsReported(t *testing.T) {
	t.Parallel()
	site := sitemapsite.New()
	t.Cleanup(site.Close)
	build := func(ago time.Duration) string {
		return time.Now().UTC().Add(-ago).Truncate(time.Second).Format(time.RFC3339)
	}
	site.Version(build(3*time.Hour), baselineSite(false))
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL("/")))
	if n := site.Hits("/m150/"); n != 0 {
		t.Errorf("the follow read /m150/ %d time(s); its pages wait for the harvest after it", n)
	}
	// The site is due at once: the harvest of due sites is the
	// scheduler's.
	mustSucceed(t, tidings(t, env, "harvest"))
	unread := 0
	for p := range baselineSite(false) {
		if site.Hits(p) == 0 {
			unread++
		}
	}
	if unread > 0 {
		t.Errorf("%d of 201 pages were not read after the follow", unread)
	}

	site.Version(build(2*time.Hour), baselineSite(true))
	var got []exportedLine
	for range 3 {
		mustSucceed(t, tidings(t, env, "harvest", "--all"))
		got = exportedLines(t, env)
		if len(got) > 0 {
			break
		}
	}
	if len(got) != 1 || got[0].URL != site.URL("/m150/") || got[0].Change != "updated" {
		t.Fatalf("export changes after the edit of /m150/: %+v; want its update alone", got)
	}
	c := got[0]
	if c.Title != "Moth 150" || c.TextChange != "changed" ||
		!strings.Contains(c.Diff, "-Its wings are brown with 3 spots.") ||
		!strings.Contains(c.Diff, "+Its wings are pink and yellow: it is the rosy maple moth.") {
		t.Errorf("the update of /m150/: title %q, text %q, diff:\n%s", c.Title, c.TextChange, c.Diff)
	}
}

// exportedLines is `export changes` with each change's text, history
// (the pages recorded as seen at the follow) left out.
func exportedLines(t *testing.T, env map[string]string) []exportedLine {
	t.Helper()
	r := tidings(t, env, "export", "changes")
	mustSucceed(t, r)
	var out []exportedLine
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if l == "" {
			continue
		}
		var c struct {
			exportedLine
			AlreadySeen bool `json:"already_seen"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("decode %s: %v", l, err)
		}
		if !c.AlreadySeen {
			out = append(out, c.exportedLine)
		}
	}
	return out
}
