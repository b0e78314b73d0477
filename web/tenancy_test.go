package web

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/accounts"
	"tidings/db"
	"tidings/feedbuild"
)

// sessionFor creates a user who follows nothing and returns a session
// token for them.
func sessionFor(t *testing.T, store *db.DB, name string) string {
	t.Helper()
	u, err := store.CreateUser(t.Context(), name, "x", accounts.NewToken(), "")
	if err != nil {
		t.Fatal(err)
	}
	token := accounts.NewToken()
	if err := store.CreateSession(t.Context(), accounts.HashToken(token), u.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	return token
}

// opmlFile is an OPML document as encoding/xml reads it: its folders, each
// with the subscriptions inside.
type opmlFile struct {
	Title   string       `xml:"head>title"`
	Folders []opmlFolder `xml:"body>outline"`
}

type opmlFolder struct {
	Text  string    `xml:"text,attr"`
	Feeds []opmlSub `xml:"outline"`
}

type opmlSub struct {
	Type    string `xml:"type,attr"`
	Text    string `xml:"text,attr"`
	XMLURL  string `xml:"xmlUrl,attr"`
	HTMLURL string `xml:"htmlUrl,attr"`
}

func parseOPMLFile(t *testing.T, body []byte) opmlFile {
	t.Helper()
	var f opmlFile
	if err := xml.Unmarshal(body, &f); err != nil {
		t.Fatalf("OPML does not parse: %v\n%s", err, body)
	}
	return f
}

func TestUsersSeeOnlyTheirOwn(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	other := newSite(t)
	a := newUIApp(t, fx.store, Options{})
	annSession := signIn(t, fx.store, "ann")
	ann := a.signedIn(t, annSession)

	ann.get("/add")
	disc := discoveryID(t, location(t, ann.post("/add", url.Values{"url": {other.URL}})))
	if x := a.waitDiscovery(t, disc); x.Status != db.DiscoveryFollowed || x.SiteID != 2 {
		t.Fatalf("adding the other site: %s %s", x.Status, x.Message)
	}
	ann.get("/import")
	if got := location(t, ann.upload("/import", "opml", "feeds.opml", opmlFor(other.URL), ann.token())); got != testBase+"imports/1" {
		t.Fatalf("import: redirected to %q", got)
	}
	a.settle(t)
	for _, p := range []string{"/site/1", "/site/2", "/collection/1", "/collection/3", "/discoveries/1", "/discoveries/2", "/imports/1"} {
		if rec := ann.get(p); rec.Code != http.StatusOK {
			t.Fatalf("ann's %s: %d", p, rec.Code)
		}
	}

	bobSession := sessionFor(t, fx.store, "bob")
	bob := a.signedIn(t, bobSession)
	annUser := a.user(t, "ann")
	// Site and collection pages are public and read-only: bob reads them,
	// with no trace of who follows them and none of ann's buttons.
	for _, p := range []string{"/site/1", "/site/2", "/collection/1", "/collection/2", "/collection/3", "/collection/4"} {
		p = public(t, fx.store, p)
		rec := bob.get(p)
		body := rec.Body.String()
		if rec.Code != http.StatusOK {
			t.Errorf("bob's GET %s: %d, want 200: the page is public", p, rec.Code)
		}
		for _, private := range []string{"Unfollow", "Harvest now", ">ann<", " ann ", annUser.FeedToken} {
			if strings.Contains(body, private) {
				t.Errorf("bob's GET %s shows %q, which is ann's:\n%s", p, private, body)
			}
		}
		if strings.HasPrefix(p, "/site/") && !strings.Contains(body, "Follow this site") {
			t.Errorf("bob's GET %s does not offer to follow the site:\n%s", p, body)
		}
	}
	for _, p := range []string{
		"/discoveries/1", "/discoveries/2", "/imports/1",
		"/site/x", "/collection/x", "/discoveries/x", "/imports/x", "/site/99", "/imports/99",
	} {
		rec := bob.get(p)
		if rec.Code != http.StatusNotFound {
			t.Errorf("bob's GET %s: %d, want 404", p, rec.Code)
		}
		if body := rec.Body.String(); strings.Contains(body, fx.site.URL) || strings.Contains(body, other.URL) || strings.Contains(body, "Shrine") {
			t.Errorf("bob's GET %s shows ann's data:\n%s", p, body)
		}
	}
	bob.get("/")
	for _, p := range []string{"/site/1/unfollow", "/site/2/unfollow", "/site/1/harvest"} {
		p = public(t, fx.store, p)
		if rec := bob.post(p, nil); rec.Code != http.StatusNotFound {
			t.Errorf("bob's POST %s: %d, want 404", p, rec.Code)
		}
	}
	for _, id := range []int64{1, 2} {
		if ok, _ := fx.store.Follows(t.Context(), annUser.ID, id); !ok {
			t.Errorf("ann no longer follows site %d", id)
		}
	}

	dash := bob.get("/").Body.String()
	if !strings.Contains(dash, "You follow no site yet") || strings.Contains(dash, fx.site.URL) || strings.Contains(dash, annUser.FeedToken) {
		t.Errorf("bob's dashboard shows ann's data:\n%s", dash)
	}
	rec := bob.get("/opml")
	if rec.Code != http.StatusOK {
		t.Fatalf("bob's OPML: %d", rec.Code)
	}
	if f := parseOPMLFile(t, rec.Body.Bytes()); len(f.Folders) != 0 || strings.Contains(rec.Body.String(), fx.site.URL) {
		t.Errorf("bob's OPML lists ann's follows:\n%s", rec.Body)
	}

	rec = bob.get("/admin")
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Only an admin may see this page.") {
		t.Errorf("bob's GET /admin: %d\n%s", rec.Code, rec.Body)
	}
	if rec := bob.post("/admin/invites", nil); rec.Code != http.StatusForbidden {
		t.Errorf("bob's POST /admin/invites: %d, want 403", rec.Code)
	}
	if list, _ := fx.store.Invites(t.Context()); len(list) != 0 {
		t.Errorf("bob created invites: %+v", list)
	}
	if strings.Contains(dash, `href="`+testBase+`admin"`) {
		t.Error("bob's pages link to /admin")
	}

	bobUser := a.user(t, "bob")
	if f := feed(t, a.h, "/"+feedbuild.UserFeedPath(bobUser.FeedToken)); len(f.Items) != 0 {
		t.Errorf("bob's aggregate feed has ann's entries: %q", titles(f))
	}
	wrong := []byte(annUser.FeedToken)
	wrong[0] ^= 1
	for _, p := range []string{"/u/.atom", "/u/" + annUser.FeedToken, "/u/" + string(wrong) + ".atom", "/u/" + annUser.FeedToken[:20] + ".atom"} {
		if rec := serveAs(t, a.h, p, bobSession); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "<feed") {
			t.Errorf("GET %s: %d, want 404", p, rec.Code)
		}
	}
}

func TestUserFeed(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{})
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	oldPath := "/" + feedbuild.UserFeedPath(a.user(t, "ann").FeedToken)

	userFeed := regexp.MustCompile(`id="user-feed" type="text" readonly value="([^"]+)"`)
	m := userFeed.FindStringSubmatch(ann.get("/").Body.String())
	if m == nil || m[1] != testBase+strings.TrimPrefix(oldPath, "/") {
		t.Fatalf("dashboard user feed URL %q, want %s", m, oldPath)
	}
	rec := serve(t, a.h, oldPath)
	if rec.Header().Get("X-Robots-Tag") != "noindex" {
		t.Errorf("user feed X-Robots-Tag %q", rec.Header().Get("X-Robots-Tag"))
	}
	f := feed(t, a.h, oldPath)
	if f.Title != "Everything ann follows — changes" || f.FeedLink != m[1] {
		t.Errorf("user feed title %q, self %q", f.Title, f.FeedLink)
	}
	got := titles(f)
	slices.Sort(got)
	if want := []string{"Now following My Shrine & Co: 3 pages", "Now following " + fx.url("/gallery/") + ": 2 pages"}; !slices.Equal(got, want) {
		t.Errorf("user feed entries %q, want %q", got, want)
	}
	// The five changes, and each collection's first harvest.
	if pf := feed(t, a.h, oldPath+"?entries=page"); len(pf.Items) != 7 {
		t.Errorf("user feed with one entry per change: %d entries, want 7", len(pf.Items))
	}

	ann.get("/")
	location(t, ann.post("/feed-token", nil))
	if rec := serve(t, a.h, oldPath); rec.Code != http.StatusNotFound {
		t.Errorf("the old user feed URL after a new token: %d, want 404", rec.Code)
	}
	m = userFeed.FindStringSubmatch(ann.get("/").Body.String())
	newPath := "/" + feedbuild.UserFeedPath(a.user(t, "ann").FeedToken)
	if m == nil || m[1] != testBase+strings.TrimPrefix(newPath, "/") || newPath == oldPath {
		t.Fatalf("dashboard user feed URL after a new token %q, want %s", m, newPath)
	}
	if f := feed(t, a.h, newPath); len(f.Items) != 2 {
		t.Errorf("the new user feed URL: %d entries, want 2", len(f.Items))
	}
}
