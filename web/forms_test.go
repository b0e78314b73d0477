package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/internal/fixturesite"
)

// newSite starts a fixture site that no database knows yet.
func newSite(t *testing.T) *fixturesite.Site {
	site := fixturesite.New(time.Now().UTC().Truncate(time.Second))
	t.Cleanup(site.Close)
	return site
}

// heldHarvester holds every follow until release is closed, so a test can
// see a discovery while it is pending.
type heldHarvester struct {
	*harvest.Harvester
	release chan struct{}
}

func (h heldHarvester) FollowNew(ctx context.Context, root, input string) (*harvest.SiteReport, *harvest.Discovery, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return h.Harvester.FollowNew(ctx, root, input)
}

func (h heldHarvester) Refollow(ctx context.Context, site db.Site, input string) (*harvest.SiteReport, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.Harvester.Refollow(ctx, site, input)
}

// submit posts form to path as c, url-encoded or as multipart with an
// "opml" file, with token in the csrf field unless it is "".
func submit(c *uiClient, path string, form url.Values, file string, token string, header http.Header) *httptest.ResponseRecorder {
	c.t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	if token != "" {
		f.Set("csrf", token)
	}
	if file == "" {
		return c.do(http.MethodPost, path, strings.NewReader(f.Encode()), "application/x-www-form-urlencoded", header)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range f {
		for _, v := range vs {
			mw.WriteField(k, v)
		}
	}
	fw, _ := mw.CreateFormFile("opml", "feeds.opml")
	io.WriteString(fw, file)
	mw.Close()
	return c.do(http.MethodPost, path, &body, mw.FormDataContentType(), header)
}

// opmlFor is an OPML file naming one site.
func opmlFor(siteURL string) string {
	return `<?xml version="1.0"?><opml version="2.0"><head><title>mine</title></head><body>` +
		`<outline text="A site" type="rss" xmlUrl="` + siteURL + `/feed.xml" htmlUrl="` + siteURL + `/"/></body></opml>`
}

func TestPostsNeedCSRFToken(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{Registration: accounts.RegistrationOpen, AuthRate: 1000})
	annSession := signIn(t, fx.store, "ann")
	ann := a.user(t, "ann")
	newAccount(t, fx.store, "bob")
	other := newSite(t)
	ctx := t.Context()

	stranger := a.client(t, "192.0.2.50")
	strangerToken := stranger.token()

	type route struct {
		path     string
		signedIn bool
		form     url.Values
		file     string
		check    func(t *testing.T, rec *httptest.ResponseRecorder)
	}
	routes := []route{
		{"/signup", false, url.Values{"name": {"carl"}, "password": {goodPassword}}, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if _, err := fx.store.UserByName(ctx, "carl"); !errors.Is(err, db.ErrNotFound) {
				t.Errorf("an account was created: %v", err)
			}
		}},
		{"/signin", false, url.Values{"name": {"bob"}, "password": {goodPassword}}, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if setCookie(rec, sessionCookie) != nil {
				t.Error("a session was started")
			}
		}},
		{"/signout", true, nil, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if r := serveAs(t, a.h, "/add", annSession); r.Code != http.StatusOK {
				t.Errorf("the session ended: GET /add is %d", r.Code)
			}
		}},
		{"/add", true, url.Values{"url": {other.URL}}, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if list, _ := fx.store.Discoveries(ctx, ann.ID, 0, 10); len(list) != 0 {
				t.Errorf("a discovery was started: %+v", list)
			}
		}},
		{"/site/1/harvest", true, nil, "", nil},
		{"/site/1/unfollow", true, nil, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if ok, _ := fx.store.Follows(ctx, ann.ID, 1); !ok {
				t.Error("the site was unfollowed")
			}
		}},
		{"/feed-token", true, nil, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if u := a.user(t, "ann"); u.FeedToken != ann.FeedToken {
				t.Error("the feed token changed")
			}
		}},
		{"/import", true, nil, opmlFor(other.URL), func(t *testing.T, rec *httptest.ResponseRecorder) {
			if _, err := fx.store.ImportByID(ctx, 1); !errors.Is(err, db.ErrNotFound) {
				t.Errorf("an import was stored: %v", err)
			}
			if list, _ := fx.store.Discoveries(ctx, ann.ID, 0, 10); len(list) != 0 {
				t.Errorf("a discovery was started: %+v", list)
			}
		}},
		{"/admin/invites", true, nil, "", func(t *testing.T, rec *httptest.ResponseRecorder) {
			if list, _ := fx.store.Invites(ctx); len(list) != 0 {
				t.Errorf("an invite was created: %+v", list)
			}
		}},
	}

	// Each variant returns the browser to send from and the token it sends.
	variants := []struct {
		name   string
		header http.Header
		setup  func(c *uiClient) string
	}{
		{"no token", nil, func(c *uiClient) string { c.get("/"); return "" }},
		{"wrong token", nil, func(c *uiClient) string { c.get("/"); return strings.Repeat("x", 32) }},
		{"another browser's token", nil, func(c *uiClient) string { c.get("/"); return strangerToken }},
		{"token without its cookie", nil, func(c *uiClient) string { return strangerToken }},
		{"cross-site, no token", http.Header{"Sec-Fetch-Site": {"cross-site"}}, func(c *uiClient) string { c.get("/"); return "" }},
		{"same-site, no token", http.Header{"Sec-Fetch-Site": {"same-site"}}, func(c *uiClient) string { c.get("/"); return "" }},
	}

	requestsBefore := len(fx.site.Log())
	for _, r := range routes {
		t.Run(strings.TrimPrefix(r.path, "/"), func(t *testing.T) {
			for _, v := range variants {
				c := a.client(t, "192.0.2.7")
				if r.signedIn {
					c = a.signedIn(t, annSession)
				}
				token := v.setup(c)
				rec := submit(c, r.path, r.form, r.file, token, v.header)
				if rec.Code != http.StatusForbidden && rec.Code != http.StatusBadRequest {
					t.Errorf("%s: %d, want 403 or 400\n%s", v.name, rec.Code, rec.Body)
				}
				if loc := rec.Header().Get("Location"); loc != "" {
					t.Errorf("%s: redirected to %s", v.name, loc)
				}
				if r.check != nil {
					r.check(t, rec)
				}
			}
		})
	}
	a.settle(t)
	if n := len(fx.site.Log()); n != requestsBefore {
		t.Errorf("refused forms made %d requests to the fixture site", n-requestsBefore)
	}
	if n := len(other.Log()); n != 0 {
		t.Errorf("refused forms made %d requests to the other site", n)
	}

	// The same forms go through with the token.
	c := a.signedIn(t, annSession)
	c.get("/")
	if got := location(t, c.post("/feed-token", nil)); got != testBase+"?done=feed-address" {
		t.Errorf("POST /feed-token with the token: redirected to %q", got)
	}
	if a.user(t, "ann").FeedToken == ann.FeedToken {
		t.Error("POST /feed-token with the token did not change it")
	}
	location(t, c.post("/admin/invites", nil))
	if list, _ := fx.store.Invites(ctx); len(list) != 1 {
		t.Errorf("POST /admin/invites with the token: %d invites, want 1", len(list))
	}
}

// addError posts url to /add and returns the message shown beside the
// field, failing unless the form is shown again with a 422.
func addError(t *testing.T, a *uiApp, c *uiClient, raw string) string {
	t.Helper()
	c.get("/add")
	rec := c.post("/add", url.Values{"url": {raw}})
	body := rec.Body.String()
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("add %q: %d, want 422\n%s", raw, rec.Code, body)
	}
	if !strings.Contains(body, `aria-invalid="true" aria-describedby="url-error"`) {
		t.Errorf("add %q: the field is not marked invalid", raw)
	}
	if !strings.Contains(body, `name="url" value="`+html.EscapeString(raw)+`"`) {
		t.Errorf("add %q: the address typed is not kept", raw)
	}
	i := strings.Index(body, `<p class="field-error" id="url-error" role="alert">`)
	if i < 0 {
		t.Fatalf("add %q: no message beside the field\n%s", raw, body)
	}
	msg, _, _ := strings.Cut(body[i:], "</p>")
	_, msg, _ = strings.Cut(msg, ">")
	return html.UnescapeString(msg)
}

func TestAddSiteMessages(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{})
	c := a.signedIn(t, signIn(t, fx.store, "ann"))
	for _, tt := range []struct{ url, want string }{
		{"", "No address was given."},
		{"   ", "No address was given."},
		{"not a url", `"not a url" is not a URL.`},
		{"ftp://x", `"ftp://x" is not an http or https address.`},
		{"http://", `"http://" has no host name.`},
		{fx.site.URL, "You already follow " + fx.url("/") + "."},
		{fx.url("/shrine/index.html"), "You already follow " + fx.url("/") + "."},
	} {
		if got := addError(t, a, c, tt.url); got != tt.want {
			t.Errorf("add %q: message %q, want %q", tt.url, got, tt.want)
		}
	}
	if list, _ := fx.store.Discoveries(t.Context(), a.user(t, "ann").ID, 0, 10); len(list) != 0 {
		t.Errorf("refused addresses started discoveries: %+v", list)
	}
}

func TestAddPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	var dials atomic.Int32
	client := fetch.NewClient(fetch.ClientOptions{DialHook: func(string, string) { dials.Add(1) }})
	store := openStore(t)
	a := newUIApp(t, store, Options{Follow: followWith(store, harvest.New(client, store, harvest.Options{}), follow.Options{})})
	c := a.signedIn(t, signIn(t, a.store, "ann"))
	for _, tt := range []struct{ url, want string }{
		{"http://10.0.0.1/", "This address points to a private address (10.0.0.1), which tidings does not fetch from. " + operatorAdvice},
		{"http://127.0.0.1:9/", "This address points to a loopback address (127.0.0.1), which tidings does not fetch from. " + operatorAdvice},
		{"http://[::1]/x", "This address points to a loopback address (::1), which tidings does not fetch from. " + operatorAdvice},
		{"169.254.169.254/latest/meta-data", "This address points to a link-local address (169.254.169.254), which tidings does not fetch from. " + operatorAdvice},
	} {
		if got := addError(t, a, c, tt.url); got != tt.want {
			t.Errorf("add %q: message %q, want %q", tt.url, got, tt.want)
		}
	}
	a.settle(t)
	if n := dials.Load(); n != 0 {
		t.Errorf("%d connections were attempted", n)
	}
	if list, _ := a.store.Discoveries(t.Context(), a.user(t, "ann").ID, 0, 10); len(list) != 0 {
		t.Errorf("refused addresses started discoveries: %+v", list)
	}
}

// discoveryID reads the discovery a redirect points to.
func discoveryID(t *testing.T, loc string) int64 {
	t.Helper()
	rest, ok := strings.CutPrefix(loc, testBase+"discoveries/")
	id, err := strconv.ParseInt(rest, 10, 64)
	if !ok || err != nil {
		t.Fatalf("redirected to %q, not to a discovery", loc)
	}
	return id
}

func TestAddNewSite(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	store := openStore(t)
	held := heldHarvester{
		Harvester: harvest.New(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), store, harvest.Options{}),
		release:   make(chan struct{}),
	}
	a := newUIApp(t, store, Options{Follow: followWith(store, held, follow.Options{})})
	c := a.signedIn(t, signIn(t, a.store, "ann"))

	c.get("/add")
	id := discoveryID(t, location(t, c.post("/add", url.Values{"url": {site.URL + "/shrine/index.html"}})))
	page := "/discoveries/" + strconv.FormatInt(id, 10)
	rec := c.get(page)
	body := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(body, `data-status="pending"`) || !strings.Contains(body, `<meta http-equiv="refresh" content="2">`) {
		t.Errorf("GET %s while pending: %d\n%s", page, rec.Code, body)
	}
	if dash := c.get("/").Body.String(); !strings.Contains(dash, "Looking at") {
		t.Error("the dashboard does not show the pending discovery")
	}

	close(held.release)
	if x := a.waitDiscovery(t, id); x.Status != db.DiscoveryFollowed || x.SiteID == 0 {
		t.Fatalf("discovery ended %s: %s", x.Status, x.Message)
	}
	body = c.get(page).Body.String()
	for _, want := range []string{`data-status="followed"`, "Followed: found 2 collections.", `href="` + testBase + sitePathOf(t, a.store, 1) + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("discovery page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "http-equiv=\"refresh\"") {
		t.Error("the finished discovery page still refreshes itself")
	}
	if ok, _ := a.store.Follows(t.Context(), a.user(t, "ann").ID, 1); !ok {
		t.Error("the site is not followed")
	}
	dash := c.get("/").Body.String()
	for _, want := range []string{
		site.URL + "/", "My Shrine &amp; Co", site.URL + "/gallery/",
		`value="` + testBase + public(t, a.store, `feeds/1.atom"`), `value="` + testBase + public(t, a.store, `feeds/2.atom"`), testBase + public(t, a.store, "sites/1.atom"),
	} {
		if !strings.Contains(dash, want) {
			t.Errorf("dashboard lacks %q", want)
		}
	}
	if strings.Contains(dash, "Looking at") {
		t.Error("the dashboard still shows the discovery as pending")
	}

	// Someone else adding the same site follows it at once, fetching nothing.
	requests := len(site.Log())
	bob := a.signedIn(t, sessionFor(t, a.store, "bob"))
	bob.get("/add")
	if got := location(t, bob.post("/add", url.Values{"url": {strings.ToUpper(site.URL[:4]) + site.URL[4:] + "/gallery/"}})); got != testBase+sitePathOf(t, a.store, 1)+"?followed=1" {
		t.Errorf("adding a known site: redirected to %q, want its page", got)
	}
	a.settle(t)
	if ok, _ := a.store.Follows(t.Context(), a.user(t, "bob").ID, 1); !ok {
		t.Error("bob does not follow the known site")
	}
	if n := len(site.Log()); n != requests {
		t.Errorf("following a known site made %d requests: %q", n-requests, site.Log()[requests:])
	}
	if rec := bob.get(public(t, a.store, "/site/1")); rec.Code != http.StatusOK {
		t.Errorf("bob's site page: %d", rec.Code)
	}
}

// operatorAdvice is what a refused address tells a person the operator
// can change.
const operatorAdvice = "The operator of this tidings can allow such addresses with --allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES=1)."

func TestAddSiteDiscoveryFails(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	site.Remove("/.well-known/resourcesync")
	a := newUIApp(t, nil, Options{})
	c := a.signedIn(t, signIn(t, a.store, "ann"))
	c.get("/add")
	id := discoveryID(t, location(t, c.post("/add", url.Values{"url": {site.URL}})))
	x := a.waitDiscovery(t, id)
	if x.Status != db.DiscoveryFailed {
		t.Fatalf("discovery ended %s: %s", x.Status, x.Message)
	}
	body := c.get("/discoveries/" + strconv.FormatInt(id, 10)).Body.String()
	for _, want := range []string{
		`data-status="failed"`, "Could not follow this site.", "Every page answered 404 Not Found: check the address.",
		"<details><summary>Details: ", " addresses tried</summary>",
		"<li>" + site.URL + "/.well-known/resourcesync returned 404 Not Found</li><li>" + site.URL + "/robots.txt returned 404 Not Found</li><li>" + site.URL + "/ returned 404 Not Found</li>",
		// The address as the discovery keeps it, normalised.
		`href="` + testBase + `add?url=` + strings.ToLower(url.QueryEscape(site.URL+"/")) + `"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("failed discovery page lacks %q:\n%s", want, body)
		}
	}
	if n := strings.Count(body, "/ returned 404 Not Found</li>"); n != 1 {
		t.Errorf("the home page's 404 is listed %d times, want once", n)
	}
	// Tried again: the dashboard reports the address once, in one
	// sentence, and the failure goes once dismissed.
	c.get("/add")
	again := discoveryID(t, location(t, c.post("/add", url.Values{"url": {site.URL}})))
	if x := a.waitDiscovery(t, again); x.Status != db.DiscoveryFailed {
		t.Fatalf("second discovery ended %s", x.Status)
	}
	dash := c.get("/").Body.String()
	if !strings.Contains(dash, "You follow no site yet") || strings.Count(dash, "Could not follow") != 1 ||
		!strings.Contains(dash, "Every page answered 404 Not Found: check the address.") || !strings.Contains(dash, "<details><summary>Details") {
		t.Errorf("dashboard after failing twice at one address:\n%s", dash)
	}
	if got := location(t, c.post(fmt.Sprintf("/discoveries/%d/dismiss", again), nil)); got != testBase+"?done=dismissed" {
		t.Errorf("dismissing: redirected to %q", got)
	}
	dash = c.get("/?done=dismissed").Body.String()
	if strings.Contains(dash, "Could not follow") || !strings.Contains(dash, `<p class="notice" role="status">Dismissed.</p>`) {
		t.Errorf("dashboard after dismissing the failure:\n%s", dash)
	}
	if sites, _ := a.store.Sites(t.Context()); len(sites) != 0 {
		t.Errorf("a failed discovery stored sites: %+v", sites)
	}
	if !slices.Contains(site.Log(), "/robots.txt") {
		t.Errorf("discovery did not look at robots.txt: %q", site.Log())
	}
}

func TestHarvestNowOncePerInterval(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{Follow: followWith(fx.store, nil, follow.Options{HarvestNowEvery: time.Hour})})
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	bob := a.signedIn(t, signIn(t, fx.store, "bob"))
	const source = "/.well-known/resourcesync"
	before := fx.site.Requests(source)

	ann.get("/site/1")
	rec := ann.post("/site/1/harvest", nil)
	if got := location(t, rec); got != testBase+sitePathOf(t, fx.store, 1)+"?harvest=started" {
		t.Errorf("first harvest now: redirected to %q", got)
	}
	a.settle(t)
	if n := fx.site.Requests(source); n != before+1 {
		t.Fatalf("first harvest now: %s fetched %d times, want 1", source, n-before)
	}
	if body := ann.get("/site/1?harvest=started").Body.String(); !strings.Contains(body, "The harvest you asked for is done") || strings.Contains(body, `http-equiv="refresh"`) {
		t.Errorf("the site page after the harvest asked for does not say it is done, or still refreshes itself:\n%s", body)
	}
	requests := len(fx.site.Log())

	for _, c := range []*uiClient{ann, bob} {
		c.get(public(t, fx.store, "/site/1"))
		rec := c.post(public(t, fx.store, "/site/1/harvest"), nil)
		loc := location(t, rec)
		if loc != testBase+sitePathOf(t, fx.store, 1)+"?harvest=wait&in=60" {
			t.Errorf("second harvest now: redirected to %q", loc)
		}
		if secs, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || secs < 3500 || secs > 3600 {
			t.Errorf("second harvest now: Retry-After %q, want about 3600", rec.Header().Get("Retry-After"))
		}
		u, _ := url.Parse(loc)
		body := c.get(u.RequestURI()).Body.String()
		if !strings.Contains(body, "This site was harvested on request a moment ago. Try again in 60 minutes.") {
			t.Errorf("the site page does not give the wait:\n%s", body)
		}
	}
	a.settle(t)
	if n := len(fx.site.Log()); n != requests {
		t.Errorf("refused harvests made %d requests: %q", n-requests, fx.site.Log()[requests:])
	}
}

const wantCSP = "default-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// TestEveryPageRenders gets every page at once, signed in as the admin and
// signed out, for the race detector and the security headers.
func TestEveryPageRenders(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	other := newSite(t)
	a := newUIApp(t, fx.store, Options{Registration: accounts.RegistrationOpen})
	admin := a.signedIn(t, signIn(t, fx.store, "ann"))
	admin.get("/add")
	disc := discoveryID(t, location(t, admin.post("/add", url.Values{"url": {other.URL}})))
	a.waitDiscovery(t, disc)
	admin.get("/import")
	location(t, admin.upload("/import", "opml", "feeds.opml", opmlFor(other.URL), admin.token()))
	location(t, admin.post("/admin/invites", nil))
	a.settle(t)
	token := a.user(t, "ann").FeedToken

	signedIn := []string{
		"/", "/add", "/add?url=example.org", "/discoveries/1", "/discoveries/2", "/site/1", "/site/2",
		"/site/1?harvest=started", "/site/1?harvest=wait&in=3", "/site/1?followed=1", "/site/1/unfollow", "/collection/1", "/collection/2", "/collection/3",
		"/opml", "/import", "/imports/1", "/admin", "/admin?done=invite", "/feed-token", "/?done=feed-address", "/static/style.css", "/static/copy.js",
		"/feeds/1.atom", "/sites/1.atom", "/feeds/1.atom?entries=page", "/u/" + token + ".atom", "/check",
	}
	signedOut := []string{"/", "/?done=signed-out", "/signin", "/signin?next=%2Fadd", "/signup", "/static/style.css", "/feeds/2.atom", "/site/1", "/collection/1",
		"/check", "/check?url=" + url.QueryEscape(other.URL)}
	for _, paths := range [][]string{signedIn, signedOut} {
		for i, p := range paths {
			paths[i] = public(t, a.store, p)
		}
	}
	anon := a.client(t, "192.0.2.60")
	type result struct {
		path string
		rec  *httptest.ResponseRecorder
	}
	results := make([]result, 0, 2*(len(signedIn)+len(signedOut)))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 2 {
		for _, set := range []struct {
			c     *uiClient
			paths []string
		}{{admin, signedIn}, {anon, signedOut}} {
			for _, p := range set.paths {
				wg.Go(func() {
					rec := set.c.get(p)
					mu.Lock()
					results = append(results, result{p, rec})
					mu.Unlock()
				})
			}
		}
	}
	wg.Wait()
	for _, r := range results {
		if r.rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d\n%s", r.path, r.rec.Code, r.rec.Body)
		}
		h := r.rec.Header()
		if got := h.Get("Content-Security-Policy"); got != wantCSP {
			t.Errorf("GET %s: Content-Security-Policy %q", r.path, got)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: nosniff %q, frame options %q", r.path, h.Get("X-Content-Type-Options"), h.Get("X-Frame-Options"))
		}
		if strings.HasPrefix(h.Get("Content-Type"), "text/html") && !strings.Contains(r.rec.Body.String(), "</html>") {
			t.Errorf("GET %s: page cut short", r.path)
		}
	}
	for _, p := range []string{"/nowhere", "/site/99", "/admin/nothing"} {
		rec := admin.get(p)
		if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Security-Policy") != wantCSP {
			t.Errorf("GET %s: %d, CSP %q", p, rec.Code, rec.Header().Get("Content-Security-Policy"))
		}
	}
}
