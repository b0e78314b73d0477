package web

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/sitemapsite"
)

// apiClient calls the API of a running test server over HTTP, and holds
// every request and answer to the OpenAPI document: an answer that does
// not match it fails the test, and so does a request the test meant to
// be valid.
type apiClient struct {
	t      *testing.T
	srv    *httptest.Server
	router routers.Router
	token  string
	// prism, when set, is Stoplight Prism's proxy in front of srv: every
	// call goes through it, and what it finds wrong fails the test too.
	prism string
}

// newAPIServer serves app over loopback and returns a client of its API
// without a token.
func newAPIServer(t *testing.T, app *uiApp) *apiClient {
	t.Helper()
	srv := httptest.NewServer(app.h)
	t.Cleanup(srv.Close)
	doc, err := openapi3.NewLoader().LoadFromData(openAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: srv.URL + apiPrefix}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &apiClient{t: t, srv: srv, router: router, prism: prismProxy(t, srv.URL)}
}

// as returns the client calling with a token.
func (a *apiClient) as(token string) *apiClient {
	b := *a
	b.token = token
	return &b
}

// apiAnswer is one answer, its body decoded when it is JSON.
type apiAnswer struct {
	status int
	header http.Header
	body   []byte
}

func (r apiAnswer) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("answer %d is not JSON: %v\n%s", r.status, err, r.body)
	}
}

// problem decodes a problem-details answer and checks its status and code.
func (r apiAnswer) problem(t *testing.T, status int, code string) map[string]any {
	t.Helper()
	var p map[string]any
	r.json(t, &p)
	if r.status != status || p["code"] != code || p["status"] != float64(status) {
		t.Errorf("answer %d, problem %v; want %d %s", r.status, p, status, code)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("problem answered as %q", ct)
	}
	if d, _ := p["detail"].(string); d == "" || !strings.HasSuffix(d, ".") {
		t.Errorf("problem detail %q is not a sentence", d)
	}
	return p
}

// call sends a request; valid says whether the request itself must
// match the document (false for the tests of malformed input). Every
// answer must, and none may be a 500.
func (a *apiClient) call(method, path, contentType string, body []byte, valid bool) apiAnswer {
	a.t.Helper()
	req, err := http.NewRequestWithContext(a.t.Context(), method, a.srv.URL+apiPrefix+path, bytes.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	via := req
	// Prism answers a body that is not JSON itself, without asking the
	// server: such a body goes to the server directly.
	if a.prism != "" && (len(body) == 0 || json.Valid(body)) {
		via, err = http.NewRequestWithContext(a.t.Context(), method, a.prism+path, bytes.NewReader(body))
	}
	if err != nil {
		a.t.Fatal(err)
	}
	for _, r := range []*http.Request{req, via} {
		if contentType != "" {
			r.Header.Set("Content-Type", contentType)
		}
		if a.token != "" {
			r.Header.Set("Authorization", "Bearer "+a.token)
		}
	}
	route, params, routeErr := a.router.FindRoute(req)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if valid {
		if routeErr != nil {
			a.t.Fatalf("%s %s is not in the document: %v", method, path, routeErr)
		}
		check := req.Clone(a.t.Context())
		check.Body = io.NopCloser(bytes.NewReader(body))
		in.Request = check
		if err := openapi3filter.ValidateRequest(a.t.Context(), in); err != nil {
			a.t.Fatalf("%s %s: the request does not match the document: %v", method, path, err)
		}
		in.Request = req
	}
	resp, err := http.DefaultClient.Do(via)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	if via != req {
		reqV, ansV := prismViolations(a.t, resp.Header)
		if len(ansV) > 0 || valid && len(reqV) > 0 {
			a.t.Errorf("%s %s: Prism finds the request %v and the answer %v against the document", method, path, reqV, ansV)
		}
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	if resp.StatusCode >= 500 {
		a.t.Errorf("%s %s: %d\n%s", method, path, resp.StatusCode, raw)
	}
	if routeErr == nil {
		err := openapi3filter.ValidateResponse(a.t.Context(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(raw)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		})
		if err != nil {
			a.t.Errorf("%s %s: the answer %d does not match the document: %v\n%s", method, path, resp.StatusCode, err, raw)
		}
	}
	return apiAnswer{status: resp.StatusCode, header: resp.Header, body: raw}
}

func (a *apiClient) get(path string) apiAnswer {
	a.t.Helper()
	return a.call(http.MethodGet, path, "", nil, true)
}

func (a *apiClient) post(path string, v any) apiAnswer {
	a.t.Helper()
	var body []byte
	if v != nil {
		var err error
		if body, err = json.Marshal(v); err != nil {
			a.t.Fatal(err)
		}
		return a.call(http.MethodPost, path, "application/json", body, true)
	}
	return a.call(http.MethodPost, path, "", nil, true)
}

func (a *apiClient) delete(path string) apiAnswer {
	a.t.Helper()
	return a.call(http.MethodDelete, path, "", nil, true)
}

// newPerson makes an account and an API token for it, as the settings
// page does.
func newPerson(t *testing.T, store *db.DB, name string) (db.User, string) {
	t.Helper()
	u, err := store.CreateUser(t.Context(), name, "x", accounts.NewToken(), "")
	if err != nil {
		t.Fatal(err)
	}
	token, hash := accounts.NewAPIToken()
	if _, err := store.CreateAPIToken(t.Context(), u.ID, name+"'s script", hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	return u, token
}

type apiSiteAnswer struct {
	ID          string `json:"id"`
	URL         string `json:"url"`
	Followed    bool   `json:"followed"`
	Collections []struct {
		ID     string `json:"id"`
		Source string `json:"source"`
		Feeds  struct{ Atom, RSS, JSON string }
	} `json:"collections"`
	Feeds struct{ Atom, RSS, JSON string }
}

// gardenSite serves a small sitemap site: version 1, then (next) an edit
// of one page and a new page.
func gardenSite(t *testing.T) (site *sitemapsite.Site, next func()) {
	t.Helper()
	site = sitemapsite.New()
	t.Cleanup(site.Close)
	v1 := map[string]sitemapsite.Page{
		"/":      {Title: "Lantern Garden", Text: "Welcome to the garden.", Lastmod: "2026-11-01"},
		"/roses": {Title: "Roses", Text: "Roses need sun.\nPrune them in March.", Lastmod: "2026-11-02"},
		"/ferns": {Title: "Ferns", Text: "Ferns like shade.", Lastmod: "2026-11-03"},
	}
	site.Version("", v1)
	return site, func() {
		v2 := map[string]sitemapsite.Page{}
		for k, v := range v1 {
			v2[k] = v
		}
		v2["/roses"] = sitemapsite.Page{Title: "Roses", Text: "Roses need sun and water.\nPrune them in March.", Lastmod: "2026-11-21"}
		v2["/tulips"] = sitemapsite.Page{Title: "Tulips", Text: "Tulips come up in April.", Lastmod: "2026-11-21"}
		site.Version("", v2)
	}
}

// TestAPIFollowAndScope: a person follows a site through the API (a new
// site is discovered in the background, polled until followed, and a
// second follow is the same follow); another person's token sees none
// of it; a revoked token and a session cookie are refused; the store
// keeps only the token's hash.
func TestAPIFollowAndScope(t *testing.T) {
	app := newUIApp(t, nil, Options{})
	api := newAPIServer(t, app)
	ann, annToken := newPerson(t, app.store, "ann")
	_, bobToken := newPerson(t, app.store, "bob")
	site, _ := gardenSite(t)
	asAnn, asBob := api.as(annToken), api.as(bobToken)

	r := asAnn.post("/sites", map[string]string{"url": site.URL("/roses")})
	if r.status != http.StatusAccepted {
		t.Fatalf("follow a new site: %d %s", r.status, r.body)
	}
	var started struct {
		Discovery struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"discovery"`
	}
	r.json(t, &started)
	if loc := r.header.Get("Location"); !strings.HasSuffix(loc, "/api/v1/discoveries/"+itoa(started.Discovery.ID)) {
		t.Errorf("Location %q", loc)
	}
	app.settle(t)
	var x struct {
		Status string  `json:"status"`
		Site   *string `json:"site"`
	}
	asAnn.get("/discoveries/"+itoa(started.Discovery.ID)).json(t, &x)
	if x.Status != db.DiscoveryFollowed || x.Site == nil {
		t.Fatalf("discovery %+v, want followed with its site", x)
	}
	siteID := *x.Site

	// Following it again, from another of its addresses, is the same.
	r = asAnn.post("/sites", map[string]string{"url": site.URL("/ferns")})
	var again struct{ Site apiSiteAnswer }
	r.json(t, &again)
	if r.status != http.StatusOK || again.Site.ID != siteID || !again.Site.Followed {
		t.Errorf("follow again: %d %+v", r.status, again)
	}
	var list struct{ Sites []apiSiteAnswer }
	asAnn.get("/sites").json(t, &list)
	if len(list.Sites) != 1 || list.Sites[0].ID != siteID || len(list.Sites[0].Collections) != 1 ||
		list.Sites[0].Collections[0].Source != "sitemap" || !strings.HasPrefix(list.Sites[0].Feeds.Atom, testBase+"sites/") {
		t.Errorf("ann's sites %+v", list.Sites)
	}

	// Bob sees nothing of Ann's.
	asBob.get("/sites").json(t, &list)
	if len(list.Sites) != 0 {
		t.Errorf("bob sees %+v", list.Sites)
	}
	asBob.get("/sites/"+siteID).problem(t, http.StatusNotFound, "not_found")
	asBob.get("/sites/"+siteID+"/rules").problem(t, http.StatusNotFound, "not_found")
	asBob.call(http.MethodPost, "/sites/"+siteID+"/rules", "application/json", []byte(`{"kind":"text","pattern":"Prune them"}`), true).
		problem(t, http.StatusNotFound, "not_found")
	asBob.get("/changes?site="+siteID).problem(t, http.StatusNotFound, "not_found")
	var lookup struct {
		Followed     bool `json:"followed"`
		FollowedHere bool `json:"followed_here"`
	}
	asBob.get("/lookup?url="+url.QueryEscape(site.URL("/"))).json(t, &lookup)
	if lookup.Followed || !lookup.FollowedHere {
		t.Errorf("bob's lookup %+v: want followed here, not by him", lookup)
	}

	// Tokens: stored hashed, refused once revoked, and a session cookie
	// opens nothing.
	tokens, err := app.store.APITokens(t.Context(), ann.ID)
	if err != nil || len(tokens) != 1 {
		t.Fatalf("ann's tokens %v, %v", tokens, err)
	}
	if _, _, err := app.store.APITokenUser(t.Context(), annToken, time.Now()); err == nil {
		t.Error("the token itself opens the store's record: it is kept as it is, not hashed")
	}
	if tokens[0].LastUsedAt == nil {
		t.Error("the token's last use is not recorded")
	}
	session := signIn(t, app.store, "cy")
	req, _ := http.NewRequest(http.MethodGet, api.srv.URL+apiPrefix+"/me", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: session})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a session cookie on the API: %d, want 401", resp.StatusCode)
	}
	api.call(http.MethodGet, "/me", "", nil, false).problem(t, http.StatusUnauthorized, "unauthorized")
	if err := app.store.DeleteAPIToken(t.Context(), ann.ID, tokens[0].ID); err != nil {
		t.Fatal(err)
	}
	asAnn.get("/me").problem(t, http.StatusUnauthorized, "unauthorized")

	// Unfollowing is idempotent.
	asBob.delete("/sites/" + siteID)
	var me struct{ Name string }
	asBob.get("/me").json(t, &me)
	if me.Name != "bob" {
		t.Errorf("bob's token names %q", me.Name)
	}
}

// TestAPIChangesAndRules: a person's changes, newest first, paged by the
// cursor with every change once, each with its removed and added lines;
// filtered by kind and time; a rule added twice is one rule, and
// removed.
func TestAPIChangesAndRules(t *testing.T) {
	store := openStore(t)
	site, next := gardenSite(t)
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	h := harvest.New(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), store, harvest.Options{Now: func() time.Time { return now }})
	if _, err := h.Follow(t.Context(), site.URL("/")); err != nil {
		t.Fatal(err)
	}
	ann, token := newPerson(t, store, "ann")
	stored, err := store.Sites(t.Context())
	if err != nil || len(stored) != 1 {
		t.Fatalf("sites %v, %v", stored, err)
	}
	if err := store.Follow(t.Context(), ann.ID, stored[0].ID); err != nil {
		t.Fatal(err)
	}
	next()
	now = now.Add(24 * time.Hour)
	if _, err := h.HarvestSite(t.Context(), stored[0]); err != nil {
		t.Fatal(err)
	}
	app := newUIApp(t, store, Options{})
	api := newAPIServer(t, app).as(token)

	type change struct {
		ID      int64    `json:"id"`
		Site    string   `json:"site"`
		URL     string   `json:"url"`
		Title   string   `json:"title"`
		Kind    string   `json:"kind"`
		At      string   `json:"at"`
		Removed []string `json:"removed"`
		Added   []string `json:"added"`
	}
	var all []change
	cursor := ""
	for page := 0; ; page++ {
		if page > 10 {
			t.Fatal("the cursor does not end")
		}
		path := "/changes?limit=1"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		var p struct {
			Changes []change `json:"changes"`
			Next    *string  `json:"next"`
		}
		api.get(path).json(t, &p)
		all = append(all, p.Changes...)
		if p.Next == nil {
			break
		}
		cursor = *p.Next
	}
	got := map[string]change{}
	for _, c := range all {
		key := c.Kind + " " + strings.TrimPrefix(c.URL, site.URL(""))
		if _, dup := got[key]; dup {
			t.Errorf("%s given twice", key)
		}
		got[key] = c
	}
	roses, ok := got["updated /roses"]
	if !ok || roses.Title != "Roses" || strings.Join(roses.Removed, "|") != "Roses need sun." || strings.Join(roses.Added, "|") != "Roses need sun and water." {
		t.Errorf("the edit of /roses: %+v (all %v)", roses, all)
	}
	if _, ok := got["created /tulips"]; !ok {
		t.Errorf("no created /tulips among %v", all)
	}
	var only struct{ Changes []change }
	api.get("/changes?kind=created").json(t, &only)
	for _, c := range only.Changes {
		if c.Kind != "created" {
			t.Errorf("kind=created gave %+v", c)
		}
	}
	if len(only.Changes) == 0 {
		t.Error("kind=created gave nothing")
	}
	api.get("/changes?since="+url.QueryEscape(roses.At)).json(t, &only)
	for _, c := range only.Changes {
		if c.At < roses.At {
			t.Errorf("since=%s gave %+v", roses.At, c)
		}
	}
	api.get("/changes?until=2000-01-01T00:00:00Z").json(t, &only)
	if len(only.Changes) != 0 {
		t.Errorf("until 2000 gave %v", only.Changes)
	}

	siteID := roses.Site
	r := api.post("/sites/"+siteID+"/rules", map[string]string{"kind": "text", "pattern": "Prune them"})
	var rule struct {
		ID       int64  `json:"id"`
		Pattern  string `json:"pattern"`
		Everyone bool   `json:"everyone"`
	}
	r.json(t, &rule)
	if r.status != http.StatusCreated || rule.Pattern != "Prune them" || rule.Everyone {
		t.Errorf("add a rule: %d %+v", r.status, rule)
	}
	r = api.post("/sites/"+siteID+"/rules", map[string]string{"kind": "text", "pattern": " Prune them "})
	var same struct{ ID int64 }
	r.json(t, &same)
	if r.status != http.StatusOK || same.ID != rule.ID {
		t.Errorf("the same rule again: %d %+v, want 200 with rule %d", r.status, same, rule.ID)
	}
	api.post("/sites/"+siteID+"/rules", map[string]string{"kind": "text", "pattern": "/(ab/"}).problem(t, http.StatusUnprocessableEntity, "rule_refused")
	var rules struct{ Rules []struct{ ID int64 } }
	api.get("/sites/"+siteID+"/rules").json(t, &rules)
	if len(rules.Rules) != 1 {
		t.Errorf("rules %+v", rules)
	}
	if r := api.delete("/sites/" + siteID + "/rules/" + itoa(rule.ID)); r.status != http.StatusNoContent {
		t.Errorf("remove the rule: %d %s", r.status, r.body)
	}
	api.delete("/sites/"+siteID+"/rules/"+itoa(rule.ID)).problem(t, http.StatusNotFound, "not_found")
}

// TestAPIMalformedInput: wrong types, missing and unknown fields, a body
// too large, the wrong content type, bad cursors and parameters, unknown
// ids and paths: each a problem a person can act on, in the document's
// shapes, never a 500.
func TestAPIMalformedInput(t *testing.T) {
	app := newUIApp(t, nil, Options{})
	_, token := newPerson(t, app.store, "ann")
	api := newAPIServer(t, app).as(token)
	bad := func(method, path, ct, body string, status int, code string) {
		t.Helper()
		api.call(method, path, ct, []byte(body), false).problem(t, status, code)
	}
	bad(http.MethodPost, "/sites", "application/json", `{"url": 5}`, http.StatusBadRequest, "bad_request")
	bad(http.MethodPost, "/sites", "application/json", `{}`, http.StatusBadRequest, "bad_request")
	bad(http.MethodPost, "/sites", "application/json", `{"url": "https://a.example/", "tags": []}`, http.StatusBadRequest, "bad_request")
	bad(http.MethodPost, "/sites", "application/json", `{"url": "https://a.example/"} {}`, http.StatusBadRequest, "bad_request")
	bad(http.MethodPost, "/sites", "application/json", `[`, http.StatusBadRequest, "bad_request")
	bad(http.MethodPost, "/sites", "application/json", `{"url": "`+strings.Repeat("a", 40<<10)+`"}`, http.StatusRequestEntityTooLarge, "too_large")
	bad(http.MethodPost, "/sites", "text/plain", `https://a.example/`, http.StatusUnsupportedMediaType, "unsupported_media_type")
	bad(http.MethodPost, "/sites", "application/json", `{"url": "not an address at all"}`, http.StatusUnprocessableEntity, "address_refused")
	bad(http.MethodGet, "/changes?cursor=bm90IGEgY3Vyc29y", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/changes?cursor=%21%21", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/changes?limit=0", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/changes?limit=ten", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/changes?kind=renamed", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/changes?since=yesterday", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/changes?site=0123456789abcdef0123456789abcdef", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/sites/0123456789abcdef0123456789abcdef", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/sites/1", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodDelete, "/sites/0123456789abcdef0123456789abcdef", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/discoveries/99999", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/discoveries/-1", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/lookup", "", "", http.StatusBadRequest, "bad_request")
	bad(http.MethodGet, "/nothing-here", "", "", http.StatusNotFound, "not_found")
	bad(http.MethodPut, "/sites", "application/json", `{}`, http.StatusNotFound, "not_found")
	api.as("").call(http.MethodGet, "/sites", "", nil, false).problem(t, http.StatusUnauthorized, "unauthorized")
	api.as("tid_not-a-token").call(http.MethodGet, "/sites", "", nil, false).problem(t, http.StatusUnauthorized, "unauthorized")

	// The document itself, served as JSON, is what the tests read.
	r := api.as("").get("/openapi.json")
	var doc struct {
		OpenAPI string `json:"openapi"`
		Paths   map[string]any
	}
	r.json(t, &doc)
	if r.status != http.StatusOK || doc.OpenAPI != "3.1.0" || doc.Paths["/changes"] == nil {
		t.Errorf("openapi.json: %d %s, %d paths", r.status, doc.OpenAPI, len(doc.Paths))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
