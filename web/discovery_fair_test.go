package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tidings/db"
	"tidings/follow"
	"tidings/harvest"
)

// gatedHarvester tells of every follow on calls, then holds it until the
// test sends on gate (or closes it). It fetches nothing, so addresses that
// name no real host can be followed.
type gatedHarvester struct {
	calls chan string
	gate  chan struct{}
}

func newGatedHarvester() *gatedHarvester {
	return &gatedHarvester{calls: make(chan string, 1000), gate: make(chan struct{})}
}

func (g *gatedHarvester) FollowNew(ctx context.Context, _, input string) (*harvest.SiteReport, *harvest.Discovery, error) {
	g.calls <- input
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return nil, nil, errors.New("the test site is closed")
}

func (g *gatedHarvester) Refollow(ctx context.Context, _ db.Site, input string) (*harvest.SiteReport, error) {
	rep, _, err := g.FollowNew(ctx, "", input)
	return rep, err
}

func (g *gatedHarvester) HarvestSite(context.Context, db.Site) (*harvest.SiteReport, error) {
	return nil, errors.New("not harvested in this test")
}

func (g *gatedHarvester) CheckAddress(context.Context, string) error { return nil }

// opmlOf is an OPML file of n sites.
func opmlOf(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><opml version="2.0"><head><title>Many</title></head><body>`)
	for i := range n {
		fmt.Fprintf(&b, `<outline text="Site %d" type="rss" xmlUrl="https://site%d.example/feed.xml"/>`, i, i)
	}
	b.WriteString(`</body></opml>`)
	return b.String()
}

func TestDiscoveriesTakeTurnsBetweenUsers(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	g := newGatedHarvester()
	a := newUIApp(t, store, Options{Follow: followWith(store, g, follow.Options{})})
	ann := a.signedIn(t, signIn(t, store, "ann"))
	bob := a.signedIn(t, sessionFor(t, store, "bob"))
	annUser := a.user(t, "ann")

	ann.get("/import")
	location(t, ann.upload("/import", "opml", "many.opml", opmlOf(300), ann.token()))
	if n, err := store.PendingCount(t.Context(), annUser.ID); err != nil || n != follow.DefaultMaxPendingDiscoveries {
		t.Fatalf("ann's import of 300 left %d pending (%v), want the cap of %d", n, err, follow.DefaultMaxPendingDiscoveries)
	}
	for range follow.DiscoveryWorkers {
		<-g.calls // every worker holds one of ann's sites
	}

	bob.get("/add")
	bobLoc := location(t, bob.post("/add", url.Values{"url": {"https://bob.example/"}}))
	// Each release frees one worker; bob's discovery must come before
	// ann's queue drains: at most one more of ann's goes first.
	for i := 0; ; i++ {
		g.gate <- struct{}{}
		if u := <-g.calls; u == "https://bob.example/" {
			break
		}
		if i == follow.DiscoveryWorkers {
			t.Fatalf("bob's discovery did not start after %d more of ann's", i+1)
		}
	}
	close(g.gate)
	a.settle(t)
	if body := bob.get(strings.TrimPrefix(bobLoc, testBase)).Body.String(); !strings.Contains(body, "The test site is closed.") {
		t.Errorf("bob's discovery page:\n%s", body)
	}
}

func TestPendingDiscoveriesCappedPerUser(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	g := newGatedHarvester()
	a := newUIApp(t, store, Options{Follow: followWith(store, g, follow.Options{MaxPendingDiscoveries: 5})})
	t.Cleanup(func() { close(g.gate) })
	ann := a.signedIn(t, signIn(t, store, "ann"))
	annUser := a.user(t, "ann")

	ann.get("/import")
	loc := location(t, ann.upload("/import", "opml", "many.opml", opmlOf(8), ann.token()))
	body := ann.get(strings.TrimPrefix(loc, testBase)).Body.String()
	skipped := section(body, "Skipped")
	for i := 5; i < 8; i++ {
		want := fmt.Sprintf("https://site%d.example/feed.xml: not queued: at most 5 of your sites may wait to be looked at", i)
		if !strings.Contains(skipped, want) {
			t.Errorf("the import result does not say %q:\n%s", want, skipped)
		}
	}
	if n, _ := store.PendingCount(t.Context(), annUser.ID); n != 5 {
		t.Errorf("%d pending after importing 8 with a cap of 5", n)
	}

	ann.get("/add")
	rec := ann.post("/add", url.Values{"url": {"https://one-more.example/"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "You already have 5 sites waiting to be looked at") {
		t.Errorf("/add over the cap: %d\n%s", rec.Code, rec.Body)
	}
	rec = ann.upload("/import", "opml", "many.opml", opmlOf(2), ann.token())
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "You already have 5 sites waiting to be looked at") {
		t.Errorf("/import over the cap: %d\n%s", rec.Code, rec.Body)
	}
	if n, _ := store.PendingCount(t.Context(), annUser.ID); n != 5 {
		t.Errorf("%d pending after adding over the cap", n)
	}
}

func TestAddAndImportRateLimitedPerUser(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	a := newUIApp(t, store, Options{Follow: followWith(store, newGatedHarvester(), follow.Options{}), AddRate: 2, ImportRate: 1})
	ann := a.signedIn(t, signIn(t, store, "ann"))
	bob := a.signedIn(t, sessionFor(t, store, "bob")) // from the same address

	ann.get("/add")
	for i := range 2 {
		if rec := ann.post("/add", url.Values{"url": {"ftp://x.example/"}}); rec.Code != http.StatusUnprocessableEntity {
			t.Fatalf("add %d: %d", i+1, rec.Code)
		}
	}
	rec := ann.post("/add", url.Values{"url": {"ftp://x.example/"}})
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "faster than tidings allows") {
		t.Errorf("third add in a minute: %d\n%s", rec.Code, rec.Body)
	}
	bob.get("/add")
	if rec := bob.post("/add", url.Values{"url": {"ftp://x.example/"}}); rec.Code != http.StatusUnprocessableEntity {
		t.Errorf("bob's add after ann's were refused: %d", rec.Code)
	}

	ann.get("/import")
	if rec := ann.upload("/import", "opml", "x.opml", "not opml", ann.token()); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("first import: %d", rec.Code)
	}
	rec = ann.upload("/import", "opml", "x.opml", "not opml", ann.token())
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "Wait 60 minutes") {
		t.Errorf("second import within the hour: %d\n%s", rec.Code, rec.Body)
	}
}
