package notify_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/demosite"
	"tidings/internal/harvesttest"
	"tidings/notify"
	webpkg "tidings/web"
)

// webApp is the web server over the test's store and notifier.
type webApp struct {
	t   *testing.T
	srv *httptest.Server
}

func startWeb(t *testing.T, e *env) *webApp {
	t.Helper()
	w, err := webpkg.New(e.store, webpkg.Options{BaseURL: "http://tidings.test/", Notify: e.n})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(w.Handler())
	t.Cleanup(srv.Close)
	return &webApp{t: t, srv: srv}
}

// get fetches path without cookies, as a stranger's browser would.
func (w *webApp) get(path string) (int, string) {
	w.t.Helper()
	resp, err := http.Get(w.srv.URL + path)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// oneClick posts to path as a mail client does for RFC 8058: no cookie,
// no CSRF token, cross-site.
func (w *webApp) oneClick(path string) (int, string) {
	w.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, w.srv.URL+path, strings.NewReader(url.Values{"List-Unsubscribe": {"One-Click"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestDigestsKeepToTheirOwn: a harvest changes two pages on each of two
// sites; two people follow one site each and each gets a digest of their
// own site's pages, titles and diffs in both parts, nothing of the
// other's, with the unsubscribe headers and links.
func TestDigestsKeepToTheirOwn(t *testing.T) {
	e := newEnv(t)
	ann := e.person("ann", demosite.ResourceSync)
	bob := e.person("bob", demosite.Sitemap)
	e.subscribe(ann, "ann@example.org")
	e.subscribe(bob, "bob@example.org")

	e.change(demosite.ResourceSync)
	e.change(demosite.Sitemap)
	// Not due yet: the first digest comes a day after the address.
	if rep := e.run(notify.RunOptions{}); rep.Digests != 0 {
		t.Fatalf("digests queued before their time: %+v", rep)
	}
	e.advance(25 * time.Hour)
	if rep := e.run(notify.RunOptions{}); rep.Digests != 2 || rep.Sent != 2 {
		t.Fatalf("Run = %+v, want 2 digests queued and sent", rep)
	}

	for _, c := range []struct {
		addr       string
		mine, not  *demosite.Site
		myPages    []string
		otherPages []string
	}{
		{"ann@example.org", e.sites.Of(demosite.ResourceSync), e.sites.Of(demosite.Sitemap),
			[]string{"Lantern Garden (edit 1) (/)", "Lantern Garden (edit 1) (/about.html)", "/about.html"}, []string{"Tide tables", "Paper Boat Almanac"}},
		{"bob@example.org", e.sites.Of(demosite.Sitemap), e.sites.Of(demosite.ResourceSync),
			[]string{"Paper Boat Almanac (edit 1)", "Tide tables (edit 1)", "/tides.html"}, []string{"Lantern", "Moon"}},
	} {
		got := e.mail.To(c.addr)
		if len(got) != 2 {
			t.Fatalf("%s got %d messages, want the confirmation and one digest", c.addr, len(got))
		}
		m := got[1]
		// TIDINGS_DIGEST_DIR=dir keeps each digest's text part and raw
		// message there, as the SMTP server received them.
		if dir := os.Getenv("TIDINGS_DIGEST_DIR"); dir != "" {
			os.WriteFile(filepath.Join(dir, c.addr+".txt"), []byte(m.Text), 0o644)
			os.WriteFile(filepath.Join(dir, c.addr+".eml"), m.Raw, 0o644)
		}
		if !strings.HasPrefix(m.Header.Get("Content-Type"), "multipart/alternative") {
			t.Errorf("%s: Content-Type %q, want multipart/alternative", c.addr, m.Header.Get("Content-Type"))
		}
		for _, part := range []struct{ name, body string }{{"text", m.Text}, {"html", m.HTML}} {
			for _, title := range c.myPages {
				if !strings.Contains(part.body, title) {
					t.Errorf("%s's %s part lacks the page %q:\n%s", c.addr, part.name, title, part.body)
				}
			}
			for _, other := range c.otherPages {
				if strings.Contains(part.body, other) {
					t.Errorf("%s's %s part tells of the other person's %q", c.addr, part.name, other)
				}
			}
			if strings.Contains(part.body, c.not.URL) {
				t.Errorf("%s's %s part names the other site %s", c.addr, part.name, c.not.URL)
			}
			for _, word := range []string{"Removed: ", "Added: ", c.mine.URL, "http://tidings.test/site/", "http://tidings.test/settings", "http://tidings.test/unsubscribe?t="} {
				if !strings.Contains(part.body, word) {
					t.Errorf("%s's %s part lacks %q:\n%s", c.addr, part.name, word, part.body)
				}
			}
		}
		unsub := m.Header.Get("List-Unsubscribe")
		if !strings.HasPrefix(unsub, "<http://tidings.test/unsubscribe?t=") || !strings.HasSuffix(unsub, ">") {
			t.Errorf("%s: List-Unsubscribe %q", c.addr, unsub)
		}
		if p := m.Header.Get("List-Unsubscribe-Post"); p != "List-Unsubscribe=One-Click" {
			t.Errorf("%s: List-Unsubscribe-Post %q", c.addr, p)
		}
		if !strings.Contains(m.Text, strings.Trim(unsub, "<>")) {
			t.Errorf("%s: the text part's unsubscribe link is not the header's %s", c.addr, unsub)
		}
	}

	// The unsubscribe link works without signing in: a mail client's
	// one-click POST (RFC 8058) turns ann's digest off, and only hers; a
	// token for bob's id with ann's signature is refused; the link opened
	// in a browser asks first.
	web := startWeb(t, e)
	annUnsub := strings.Trim(e.mail.To("ann@example.org")[1].Header.Get("List-Unsubscribe"), "<>")
	path := strings.TrimPrefix(annUnsub, "http://tidings.test")
	token := path[strings.Index(path, "?t=")+3:]
	forged := "/unsubscribe?t=2" + token[strings.Index(token, "."):]
	if code, _ := web.oneClick(forged); code != http.StatusNotFound {
		t.Errorf("one-click with a forged token answered %d, want 404", code)
	}
	if code, body := web.get(path); code != http.StatusOK || !strings.Contains(body, ">Unsubscribe</button>") {
		t.Errorf("GET %s = %d, want a page with a button:\n%s", path, code, body)
	}
	if code, body := web.oneClick(path); code != http.StatusOK || !strings.Contains(body, "Unsubscribed") {
		t.Errorf("one-click unsubscribe answered %d:\n%s", code, body)
	}
	for name, want := range map[string]string{"ann": db.EveryOff, "bob": db.EveryDaily} {
		u, _ := e.store.UserByName(e.ctx, name)
		s, _ := e.store.NotifySettingsOf(e.ctx, u.ID)
		if s.Every != want {
			t.Errorf("%s's digest is %s, want %s", name, s.Every, want)
		}
	}

	// Nothing new: --now sends nothing more.
	e.advance(25 * time.Hour)
	if rep := e.run(notify.RunOptions{AllDigests: true}); rep.Sent != 0 {
		t.Errorf("a run with nothing new sent %+v", rep)
	}
}

// TestDigestGroupsAPagesChanges: a page changed in three harvests between
// two digests is one item of the digest, which says how often ("edited 3
// times") and shows the newest change.
func TestDigestGroupsAPagesChanges(t *testing.T) {
	e := newEnv(t)
	ann := e.person("ann", demosite.ResourceSync)
	e.subscribe(ann, "ann@example.org")
	var before int
	if err := e.store.ExportChanges(e.ctx, db.ExportFilter{}, func(db.ExportedChange) error { before++; return nil }); err != nil {
		t.Fatal(err)
	}
	// The sample site changes two of its six pages a harvest, in turn:
	// nine harvests change each three times.
	site := e.sites.Of(demosite.ResourceSync)
	start := time.Now().Add(-time.Hour)
	for i := range 9 {
		site.Change(2, start.Add(time.Duration(i)*time.Minute))
		harvesttest.HarvestSite(t, e.store, e.h, site.URL+"/")
	}
	times := map[string]int{}
	n := 0
	if err := e.store.ExportChanges(e.ctx, db.ExportFilter{}, func(c db.ExportedChange) error {
		if n++; n > before && c.Kind == "updated" {
			times[c.URL]++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	e.advance(25 * time.Hour)
	if rep := e.run(notify.RunOptions{}); rep.Digests != 1 {
		t.Fatalf("Run = %+v, want a digest", rep)
	}
	got := e.mail.To("ann@example.org")
	if len(got) != 2 {
		t.Fatalf("%d messages, want the confirmation and a digest", len(got))
	}
	text := got[1].Text
	items := map[string]int{}
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		// An item's address is indented under its title; the site's is not.
		if _, ok := times[strings.TrimSpace(l)]; ok && strings.HasPrefix(l, "  ") {
			items[strings.TrimSpace(l)]++
		}
	}
	for u, k := range times {
		if items[u] != 1 {
			t.Errorf("%s, changed %d times, is %d items of the digest, want 1:\n%s", u, k, items[u], text)
		}
	}
	if !strings.Contains(text, "(edited 3 times, the last ") {
		t.Errorf("no item says its page was edited 3 times:\n%s", text)
	}
	if strings.Contains(text, "before its time") {
		t.Errorf("a digest sent on its schedule says it came early:\n%s", text)
	}
	// One asked for an hour later, as notify --now and the demo do, says
	// that it comes before its time, beside the schedule.
	site.Change(2, start.Add(time.Hour))
	harvesttest.HarvestSite(t, e.store, e.h, site.URL+"/")
	e.advance(time.Hour)
	if rep := e.run(notify.RunOptions{AllDigests: true}); rep.Digests != 1 {
		t.Fatalf("Run --now = %+v, want a digest", rep)
	}
	if got = e.mail.To("ann@example.org"); len(got) != 3 || !strings.Contains(strings.ReplaceAll(got[2].Text, "\r\n", "\n"),
		"You get this digest daily (this one was sent before its time, when asked) from tidings as ann.") {
		t.Errorf("the digest asked for early does not say so:\n%s", got[len(got)-1].Text)
	}
}

// TestDigestPutsQuietSitesFirst: of two sites with news, the one silent
// for four months before comes first in the digest, saying so, above one
// that changes daily.
func TestDigestPutsQuietSitesFirst(t *testing.T) {
	e := newEnv(t)
	ann := e.person("ann")
	now := time.Now().UTC().Truncate(time.Second)
	type siteCol struct {
		site db.Site
		col  db.Collection
	}
	made := map[string]siteCol{}
	store := func(name string, at time.Time) {
		sc := made[name]
		ch := db.Change{URL: fmt.Sprintf("%sp%d.html", sc.site.URL, at.Unix()), Kind: "updated", Datetime: at, Title: name + " page"}
		if _, err := e.store.SaveCollectionHarvest(e.ctx, db.CollectionHarvest{
			Run: db.Run{SiteID: sc.site.ID, CollectionID: sc.col.ID, StartedAt: at, FinishedAt: at, Changes: 1}, Changes: []db.Change{ch}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"Daily", "Quiet"} {
		s, err := e.store.CreateSite(e.ctx, db.Site{URL: "https://" + strings.ToLower(name) + ".example/", InputURL: "https://" + strings.ToLower(name) + ".example/", Title: name})
		if err != nil {
			t.Fatal(err)
		}
		cols, err := e.store.SyncCollections(e.ctx, s.ID, []db.CollectionSpec{{Protocol: "sitemap", Key: s.URL, SourceURL: s.URL + "sitemap.xml"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.Follow(e.ctx, ann.ID, s.ID); err != nil {
			t.Fatal(err)
		}
		made[name] = siteCol{s, cols[0]}
	}
	for d := 10; d >= 2; d-- {
		store("Daily", now.Add(-time.Duration(d)*24*time.Hour))
	}
	store("Quiet", now.Add(-125*24*time.Hour))
	e.subscribe(ann, "ann@example.org")
	// The news: the daily site's, then the quiet site's, older.
	store("Daily", now.Add(-time.Hour))
	store("Quiet", now.Add(-3*time.Hour))
	e.advance(25 * time.Hour)
	if rep := e.run(notify.RunOptions{}); rep.Digests != 1 {
		t.Fatalf("Run = %+v, want a digest", rep)
	}
	got := e.mail.To("ann@example.org")
	if len(got) != 2 {
		t.Fatalf("%d messages, want the confirmation and a digest", len(got))
	}
	for _, part := range []struct{ name, body, quiet, daily string }{
		{"text", got[1].Text, "== Quiet ==\nFirst change in 4 months.\n", "== Daily =="},
		{"html", got[1].HTML, ">Quiet</a></h2>\n<p><strong>First change in 4 months.</strong></p>", ">Daily</a></h2>"},
	} {
		body := strings.ReplaceAll(part.body, "\r\n", "\n")
		q, d := strings.Index(body, part.quiet), strings.Index(body, part.daily)
		if q < 0 || d < 0 || q > d {
			t.Errorf("the digest's %s part: the quiet site at %d, the daily one at %d; want the quiet one first, saying why:\n%s", part.name, q, d, body)
		}
		if strings.Count(body, "First change") != 1 {
			t.Errorf("the digest's %s part gives %d reasons, want the quiet site's alone", part.name, strings.Count(body, "First change"))
		}
	}
}
