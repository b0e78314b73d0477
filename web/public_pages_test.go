package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"

	"tidings/accounts"
	"tidings/db"
	"tidings/follow"
	"tidings/harvest"
)

// TestPublicPagesOfferTheirFeeds: a feed reader given a site's or a
// collection's page address, with no session, finds the feeds in the page
// and reads them; an old numeric address names nothing; nothing on the
// page names who follows the site.
func TestPublicPagesOfferTheirFeeds(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	signIn(t, fx.store, "zebedee") // a follower, whose name must not show
	ts := httptest.NewUnstartedServer(nil)
	base := "http://" + ts.Listener.Addr().String() + "/"
	s, err := New(fx.store, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	site, err := fx.store.SiteByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	col, err := fx.store.CollectionByID(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}

	gallery, err := fx.store.CollectionByID(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		old, public string
		titles      []string // of the collection feeds among the Atom feeds linked
		atom        int      // how many Atom feeds are linked
	}{
		// The site's own feed, and one per collection.
		{"site/1", "site/" + site.PublicID, []string{col.Title + " — changes", gallery.Title + " — changes"}, 3},
		{"collection/1", "collection/" + col.PublicID, []string{col.Title + " — changes"}, 1},
	} {
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noFollow.Get(base + tc.old)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s to %q, want 404", tc.old, resp.Status, resp.Header.Get("Location"))
		}

		resp, err = http.Get(base + tc.public)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s without a session: %s, want 200", tc.public, resp.Status)
		}
		for _, private := range []string{"zebedee", "<form", "Unfollow", "Harvest now"} {
			if strings.Contains(string(body), private) {
				t.Errorf("the public page %s shows %q", tc.public, private)
			}
		}
		links := alternates(t, string(body))
		if len(links) == 0 {
			t.Fatalf("%s has no <link rel=alternate>:\n%s", tc.public, body)
		}
		var atomTitles []string
		for _, l := range links {
			f, err := gofeed.NewParser().ParseURLWithContext(l.href, t.Context())
			if err != nil {
				t.Errorf("%s links %s (%s), which a reader cannot read: %v", tc.public, l.href, l.typ, err)
				continue
			}
			if l.typ == "application/atom+xml" {
				atomTitles = append(atomTitles, f.Title)
			}
		}
		for _, title := range tc.titles {
			if !slices.Contains(atomTitles, title) || len(atomTitles) != tc.atom {
				t.Errorf("%s: the Atom feeds a reader finds are titled %q, want %d with %q among them", tc.public, atomTitles, tc.atom, title)
			}
		}
	}
}

type alternate struct{ typ, href string }

// alternates reads the feed links of a page's head, as a reader's
// autodiscovery does.
func alternates(t *testing.T, page string) []alternate {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []alternate
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "link" {
			a := map[string]string{}
			for _, at := range n.Attr {
				a[at.Key] = at.Val
			}
			if a["rel"] == "alternate" {
				out = append(out, alternate{a["type"], a["href"]})
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// TestDestructiveActionsAskFirst: unfollowing and replacing the feed
// address show a form page first and change nothing until it is sent;
// then a message says what happened, with a way back.
func TestDestructiveActionsAskFirst(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{})
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	annID := a.user(t, "ann").ID
	page := sitePathOf(t, fx.store, 1)

	if body := ann.get("/" + page).Body.String(); !strings.Contains(body, `href="`+testBase+page+`/unfollow">Unfollow…</a>`) {
		t.Fatalf("the site page has no link to unfollow:\n%s", body)
	}
	rec := ann.get("/" + page + "/unfollow")
	body := rec.Body.String()
	for _, want := range []string{"<h1>Unfollow Fixture Site?</h1>", `action="` + testBase + page + `/unfollow"`, `name="csrf"`, `<a href="` + testBase + page + `">Cancel</a>`} {
		if rec.Code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("the unfollow confirmation (%d) lacks %q:\n%s", rec.Code, want, body)
		}
	}
	if ok, _ := fx.store.Follows(t.Context(), annID, 1); !ok {
		t.Fatal("showing the confirmation unfollowed the site")
	}
	loc := location(t, ann.post("/"+page+"/unfollow", nil))
	if ok, _ := fx.store.Follows(t.Context(), annID, 1); ok {
		t.Fatal("confirming did not unfollow the site")
	}
	u, _ := url.Parse(loc)
	dash := ann.get(u.RequestURI()).Body.String()
	if !strings.Contains(dash, "Unfollowed Fixture Site.") || !strings.Contains(dash, ">Follow it again</button>") {
		t.Fatalf("the dashboard after unfollowing does not say so, or offer to follow again:\n%s", dash)
	}
	loc = location(t, ann.post("/add", url.Values{"url": {fx.site.URL + "/"}}))
	u, _ = url.Parse(loc)
	if body := ann.get(u.RequestURI()).Body.String(); !strings.Contains(body, "You now follow Fixture Site.") {
		t.Errorf("following again (%s) does not say so:\n%s", loc, body)
	}
	if ok, _ := fx.store.Follows(t.Context(), annID, 1); !ok {
		t.Error("following again did not follow")
	}

	before := a.user(t, "ann").FeedToken
	body = ann.get("/feed-token").Body.String()
	if !strings.Contains(body, before) || !strings.Contains(body, ">Make a new address</button>") {
		t.Errorf("the feed address confirmation does not name the address that stops working:\n%s", body)
	}
	if a.user(t, "ann").FeedToken != before {
		t.Fatal("showing the confirmation replaced the feed address")
	}
	loc = location(t, ann.post("/feed-token", nil))
	after := a.user(t, "ann").FeedToken
	u, _ = url.Parse(loc)
	dash = ann.get(u.RequestURI()).Body.String()
	if after == before || !strings.Contains(dash, "Your feed has a new address") || !strings.Contains(dash, after) {
		t.Errorf("after confirming: token changed %v, dashboard:\n%s", after != before, dash)
	}
}

// TestErrorPagesHaveTheLayout: a page that fails is still a page of
// tidings, with its navigation and a way on; feeds fail in plain text.
func TestErrorPagesHaveTheLayout(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{AuthRate: 1})
	visitor := a.client(t, "192.0.2.7")
	signIn(t, fx.store, "first") // the admin
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	for _, tc := range []struct {
		c          *uiClient
		method     string
		path       string
		code       int
		want       []string
		htmlAnswer bool
	}{
		{visitor, http.MethodGet, "/nowhere", 404, []string{"<h1>Page not found</h1>", "There is nothing at this address", ">Sign in</a></li>"}, true},
		{ann, http.MethodGet, "/site/0123456789abcdef", 404, []string{"<h1>Page not found</h1>", "There is no site at this address here", ">Your sites</a></li>", "Sign out ann"}, true},
		{ann, http.MethodGet, "/admin", 403, []string{"<h1>Not allowed</h1>", "Only an admin may see this page.", ">Add a site</a></li>"}, true},
		{ann, http.MethodGet, "/discoveries/99", 404, []string{"<h1>Page not found</h1>"}, true},
		{visitor, http.MethodGet, "/feeds/99.atom", 404, nil, false},
	} {
		rec := tc.c.do(tc.method, tc.path, nil, "", nil)
		body := rec.Body.String()
		isHTML := strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html")
		if rec.Code != tc.code || isHTML != tc.htmlAnswer {
			t.Errorf("%s %s: %d %s, want %d (HTML %v)", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.code, tc.htmlAnswer)
		}
		for _, want := range append(tc.want, `<link rel="stylesheet"`) {
			if tc.htmlAnswer && !strings.Contains(body, want) {
				t.Errorf("%s %s lacks %q:\n%s", tc.method, tc.path, want, body)
			}
		}
	}

	// The sign-in lockout, after one attempt a minute.
	visitor.get("/signin")
	var rec *httptest.ResponseRecorder
	for range 3 {
		rec = visitor.post("/signin", url.Values{"name": {"ann"}, "password": {"wrong password"}})
	}
	body := rec.Body.String()
	for _, want := range []string{"<h1>Too many attempts</h1>", "Wait a minute and try again.", `href="` + testBase + `signin">Try again in a minute</a>`} {
		if rec.Code != http.StatusTooManyRequests || !strings.Contains(body, want) {
			t.Errorf("the sign-in lockout (%d) lacks %q:\n%s", rec.Code, want, body)
		}
	}
}

// TestAdminHealthCountsCollectionErrors: a site whose own documents are
// fine but one of whose collections fails is not "ok", on the admin page
// and on the site page alike.
func TestAdminHealthCountsCollectionErrors(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	admin, err := fx.store.CreateFirstUser(t.Context(), "root", "x", accounts.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	token := accounts.NewToken()
	if err := fx.store.CreateSession(t.Context(), accounts.HashToken(token), admin.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := fx.store.Follow(t.Context(), admin.ID, 1); err != nil {
		t.Fatal(err)
	}
	a := newUIApp(t, fx.store, Options{})
	root := a.signedIn(t, token)
	if body := root.get("/admin").Body.String(); !strings.Contains(body, `<span class="health health-ok">ok</span>`) {
		t.Fatalf("a healthy site is not ok on the admin page:\n%s", body)
	}
	fx.site.Fail("/gallery/caps.xml", http.StatusInternalServerError)
	fx.harvestAgain(t)
	const want = `<span class="health health-partial">partly failing: 1 of 2 collections fail</span>`
	if body := root.get("/admin").Body.String(); !strings.Contains(body, want) || !strings.Contains(body, "<li>"+fx.url("/gallery/")+": capability list") {
		t.Errorf("the admin page lacks %s and the failing collection's error:\n%s", want, body)
	}
	for _, page := range []string{"/site/1", "/"} {
		if body := root.get(page).Body.String(); !strings.Contains(body, want) {
			t.Errorf("%s lacks %s:\n%s", page, want, body)
		}
	}
}

// slowHarvester holds every HarvestSite until release is closed.
type slowHarvester struct {
	*harvest.Harvester
	release chan struct{}
}

func (h slowHarvester) HarvestSite(ctx context.Context, site db.Site) (*harvest.SiteReport, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.Harvester.HarvestSite(ctx, site)
}

// TestHarvestNowRefreshesUntilDone: the page "Harvest now" leads to
// reloads itself while the harvest runs, and stops once it is done.
func TestHarvestNowRefreshesUntilDone(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	slow := slowHarvester{fx.harvester(), make(chan struct{})}
	a := newUIApp(t, fx.store, Options{Follow: followWith(fx.store, slow, follow.Options{})})
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	ann.get("/site/1")
	u, _ := url.Parse(location(t, ann.post("/site/1/harvest", nil)))
	body := ann.get(u.RequestURI()).Body.String()
	if !strings.Contains(body, `<meta http-equiv="refresh" content="3">`) || !strings.Contains(body, "Harvesting now…") {
		t.Errorf("the page during the harvest does not reload itself:\n%s", body)
	}
	close(slow.release)
	a.settle(t)
	body = ann.get(u.RequestURI()).Body.String()
	if strings.Contains(body, `http-equiv="refresh"`) || !strings.Contains(body, "The harvest you asked for is done") {
		t.Errorf("the page after the harvest still reloads itself or does not say it is done:\n%s", body)
	}
}

// TestSignUpOfferedOnlyWhereOpen: the landing page and the navigation
// offer signing up when registration allows it, and not otherwise.
func TestSignUpOfferedOnlyWhereOpen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		registration string
		users        int
		want, absent []string
	}{
		{accounts.RegistrationInvite, 0, []string{">Create the first account</a>"}, []string{`signup">Sign up</a>`}},
		{accounts.RegistrationInvite, 1, []string{"Accounts here are made by invitation."}, []string{"/signup"}},
		{accounts.RegistrationOpen, 1, []string{`<a class="button primary" href="` + testBase + `signup">Sign up</a>`, `<a href="` + testBase + `signup">Sign up</a>`}, nil},
		{accounts.RegistrationClosed, 1, nil, []string{"/signup"}},
	} {
		a := newUIApp(t, nil, Options{Registration: tc.registration})
		for i := range tc.users {
			signIn(t, a.store, fmt.Sprintf("user%d", i))
		}
		body := a.client(t, "192.0.2.9").get("/").Body.String()
		for _, want := range tc.want {
			if !strings.Contains(body, want) {
				t.Errorf("%s with %d accounts: the landing page lacks %q:\n%s", tc.registration, tc.users, want, body)
			}
		}
		for _, absent := range tc.absent {
			if strings.Contains(body, absent) {
				t.Errorf("%s with %d accounts: the landing page offers %q:\n%s", tc.registration, tc.users, absent, body)
			}
		}
	}
}

// TestImportFailureIsOneSentence: a site of an OPML import that could not
// be followed reads as one sentence, its attempts folded, one a line.
func TestImportFailureIsOneSentence(t *testing.T) {
	t.Parallel()
	empty := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(empty.Close)
	a := newUIApp(t, nil, Options{})
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	ann.get("/import")
	loc := location(t, ann.upload("/import", "opml", "feeds.opml", opmlFor(empty.URL), ann.token()))
	failed := section(importResult(t, a, ann, loc), "Could not be followed")
	for _, want := range []string{
		`<span class="problem">Every page answered 404 Not Found: check the address.</span>`,
		"<details><summary>Details: ", "<li>" + empty.URL + "/robots.txt returned 404 Not Found</li>",
	} {
		if !strings.Contains(failed, want) {
			t.Errorf("the failed import lacks %q:\n%s", want, failed)
		}
	}
}
