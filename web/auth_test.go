package web

import (
	"bytes"
	"errors"
	"html"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/sitecheck"
)

// uiApp is a Server over its own database, driven through its handler.
type uiApp struct {
	srv   *Server
	h     http.Handler
	store *db.DB
	base  *url.URL
}

// newUIApp builds a server over store (a new database when nil). Unset
// options get test defaults: the test base URL, and a follow service and
// a checker whose harvester may fetch from the loopback fixture sites.
func newUIApp(t *testing.T, store *db.DB, o Options) *uiApp {
	t.Helper()
	if store == nil {
		store = openStore(t)
	}
	if o.BaseURL == "" {
		o.BaseURL = testBase
	}
	if o.Follow == nil || o.Checker == nil {
		client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true})
		h := harvest.New(client, store, harvest.Options{})
		if o.Follow == nil {
			o.Follow = follow.New(store, h, follow.Options{})
		}
		if o.Checker == nil {
			o.Checker = sitecheck.New(h)
		}
	}
	s, err := New(store, o)
	if err != nil {
		t.Fatal(err)
	}
	base, err := url.Parse(o.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	o.Follow.Start(t.Context())
	// Registered after the store's cleanup, so it runs before the store
	// closes.
	t.Cleanup(o.Follow.Wait)
	return &uiApp{srv: s, h: s.Handler(), store: store, base: base}
}

// followWith is a follow service over store following with h, or, when h
// is nil, with a harvester that may fetch from loopback.
func followWith(store *db.DB, h follow.Harvester, o follow.Options) *follow.Service {
	if h == nil {
		h = harvest.New(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), store, harvest.Options{})
	}
	return follow.New(store, h, o)
}

// openStore opens a new database.
func openStore(t *testing.T) *db.DB {
	t.Helper()
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// settle waits, at most 10 s, until no background discovery or harvest is
// running.
func (a *uiApp) settle(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		a.srv.follow.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("background work still running after 10 s")
	}
}

// waitDiscovery polls the database, at most 10 s, until discovery id is
// no longer pending.
func (a *uiApp) waitDiscovery(t *testing.T, id int64) db.Discovery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		x, err := a.store.DiscoveryByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if x.Status != db.DiscoveryPending {
			return x
		}
		if time.Now().After(deadline) {
			t.Fatalf("discovery %d of %s still pending after 10 s", id, x.InputURL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// user loads an account by name.
func (a *uiApp) user(t *testing.T, name string) db.User {
	t.Helper()
	u, err := a.store.UserByName(t.Context(), name)
	if err != nil {
		t.Fatalf("user %s: %v", name, err)
	}
	return u
}

// uiClient is one browser: it keeps cookies between requests and the CSRF
// token of the last page that had one. It sends no Sec-Fetch-Site header,
// so the token is what protects its forms.
type uiClient struct {
	t    *testing.T
	app  *uiApp
	jar  *cookiejar.Jar
	addr string // RemoteAddr of its requests

	mu   sync.Mutex
	csrf string
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

// client returns a browser connecting from ip.
func (a *uiApp) client(t *testing.T, ip string) *uiClient {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &uiClient{t: t, app: a, jar: jar, addr: ip + ":40000"}
}

// signedIn returns a browser holding an existing session token.
func (a *uiApp) signedIn(t *testing.T, session string) *uiClient {
	c := a.client(t, "192.0.2.10")
	c.jar.SetCookies(a.base, []*http.Cookie{{Name: sessionCookie, Value: session, Path: "/"}})
	return c
}

// do sends one request; header may add or override headers.
func (c *uiClient) do(method, path string, body io.Reader, contentType string, header http.Header) *httptest.ResponseRecorder {
	c.t.Helper()
	u, err := c.app.base.Parse(strings.TrimPrefix(path, "/"))
	if err != nil {
		c.t.Fatal(err)
	}
	req := httptest.NewRequest(method, u.String(), body)
	req.RemoteAddr = c.addr
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	for _, ck := range c.jar.Cookies(u) {
		req.AddCookie(ck)
	}
	rec := httptest.NewRecorder()
	c.app.h.ServeHTTP(rec, req)
	c.jar.SetCookies(u, rec.Result().Cookies())
	if m := csrfInput.FindStringSubmatch(rec.Body.String()); m != nil {
		c.mu.Lock()
		c.csrf = html.UnescapeString(m[1])
		c.mu.Unlock()
	}
	return rec
}

// get fetches a page, following a permanent redirect as a browser does:
// old numeric page addresses move to public ids.
func (c *uiClient) get(path string) *httptest.ResponseRecorder {
	c.t.Helper()
	rec := c.do(http.MethodGet, path, nil, "", nil)
	if rec.Code == http.StatusMovedPermanently {
		u, err := url.Parse(rec.Header().Get("Location"))
		if err != nil {
			c.t.Fatal(err)
		}
		return c.do(http.MethodGet, strings.TrimPrefix(u.RequestURI(), c.app.base.Path), nil, "", nil)
	}
	return rec
}

// token returns the CSRF token of the pages seen, loading one if none was.
func (c *uiClient) token() string {
	c.t.Helper()
	c.mu.Lock()
	tok := c.csrf
	c.mu.Unlock()
	if tok == "" {
		c.get("/signin")
		c.mu.Lock()
		tok = c.csrf
		c.mu.Unlock()
		if tok == "" {
			c.t.Fatal("no page offered a CSRF token")
		}
	}
	return tok
}

// post submits a form with the CSRF token of the pages seen.
func (c *uiClient) post(path string, form url.Values) *httptest.ResponseRecorder {
	c.t.Helper()
	f := url.Values{}
	for k, v := range form {
		f[k] = v
	}
	f.Set("csrf", c.token())
	return c.postRaw(path, f, nil)
}

// postRaw submits a form as it is.
func (c *uiClient) postRaw(path string, form url.Values, header http.Header) *httptest.ResponseRecorder {
	c.t.Helper()
	return c.do(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", header)
}

// upload posts a file as the import form does; token "" leaves the CSRF
// field out.
func (c *uiClient) upload(path, field, filename, content, token string) *httptest.ResponseRecorder {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if token != "" {
		mw.WriteField("csrf", token)
	}
	if filename != "" {
		fw, err := mw.CreateFormFile(field, filename)
		if err != nil {
			c.t.Fatal(err)
		}
		io.WriteString(fw, content)
	}
	mw.Close()
	return c.do(http.MethodPost, path, &body, mw.FormDataContentType(), nil)
}

// session returns the session cookie the browser holds, or "".
func (c *uiClient) session() string {
	for _, ck := range c.jar.Cookies(c.app.base) {
		if ck.Name == sessionCookie {
			return ck.Value
		}
	}
	return ""
}

// signUp creates an account through the form and fails unless it worked.
func (c *uiClient) signUp(name, password, invite string) {
	c.t.Helper()
	path := "/signup"
	if invite != "" {
		path += "?invite=" + url.QueryEscape(invite)
	}
	c.get(path)
	rec := c.post("/signup", url.Values{"name": {name}, "password": {password}, "invite": {invite}})
	if rec.Code != http.StatusSeeOther {
		c.t.Fatalf("sign up %s: %d, want 303\n%s", name, rec.Code, rec.Body)
	}
	if c.session() == "" {
		c.t.Fatalf("sign up %s: not signed in", name)
	}
}

// location is a redirect's target; it fails unless rec is a 303.
func location(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("status %d, want 303\n%s", rec.Code, rec.Body)
	}
	return rec.Header().Get("Location")
}

// setCookie finds a cookie the response sets.
func setCookie(rec *httptest.ResponseRecorder, name string) *http.Cookie {
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

const goodPassword = "correct horse battery"

func TestFirstSignUpBecomesAdmin(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"http://tidings.test/", "https://tidings.test/"} {
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			a := newUIApp(t, nil, Options{BaseURL: base})
			c := a.client(t, "192.0.2.1")
			rec := c.get("/signup")
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "it will be its admin") {
				t.Fatalf("GET /signup: %d\n%s", rec.Code, rec.Body)
			}
			if ck := setCookie(rec, "tidings_csrf"); ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure != strings.HasPrefix(base, "https") {
				t.Errorf("CSRF cookie %+v: want HttpOnly, SameSite=Lax, Secure only on https", ck)
			}
			rec = c.post("/signup", url.Values{"name": {"ann"}, "password": {goodPassword}})
			if got := location(t, rec); got != base {
				t.Errorf("after sign-up, redirected to %q, want %q", got, base)
			}
			ck := setCookie(rec, sessionCookie)
			if ck == nil || ck.Value == "" {
				t.Fatal("sign-up set no session cookie")
			}
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" {
				t.Errorf("session cookie %q: want HttpOnly, SameSite=Lax, Path=/", rec.Header().Values("Set-Cookie"))
			}
			if ck.Secure != strings.HasPrefix(base, "https") {
				t.Errorf("session cookie Secure=%v with base %s", ck.Secure, base)
			}
			if u := a.user(t, "ann"); !u.Admin {
				t.Error("the first account is not an admin")
			}
			body := c.get("/").Body.String()
			for _, want := range []string{"Sign out ann", `href="` + base + `admin"`} {
				if !strings.Contains(body, want) {
					t.Errorf("dashboard after sign-up lacks %q", want)
				}
			}
		})
	}
}

// inviteLink creates an invite as the admin and reads its link off /admin.
func inviteLink(t *testing.T, admin *uiClient) string {
	t.Helper()
	admin.get("/admin")
	if got := location(t, admin.post("/admin/invites", nil)); got != testBase+"admin?done=invite" {
		t.Errorf("after creating an invite, redirected to %q", got)
	}
	page := admin.get("/admin").Body.String()
	m := regexp.MustCompile(`value="(http://tidings\.test/signup\?invite=[^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("/admin shows no invite link:\n%s", page)
	}
	return html.UnescapeString(m[1])
}

func TestInviteMode(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{Registration: accounts.RegistrationInvite})
	admin := a.client(t, "192.0.2.1")
	admin.signUp("ann", goodPassword, "")

	bob := a.client(t, "192.0.2.2")
	rec := bob.get("/signup")
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Signing up needs an invite link") {
		t.Errorf("GET /signup without invite: %d\n%s", rec.Code, rec.Body)
	}
	rec = bob.post("/signup", url.Values{"name": {"bob"}, "password": {goodPassword}})
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Signing up needs an invite link") {
		t.Errorf("POST /signup without invite: %d\n%s", rec.Code, rec.Body)
	}
	rec = bob.post("/signup", url.Values{"name": {"bob"}, "password": {goodPassword}, "invite": {"made-up"}})
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "This invite link is not valid") {
		t.Errorf("POST /signup with a made-up invite: %d\n%s", rec.Code, rec.Body)
	}
	if n, _ := a.store.CountUsers(t.Context()); n != 1 {
		t.Fatalf("%d accounts after refused sign-ups, want 1", n)
	}

	link := inviteLink(t, admin)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	invite := u.Query().Get("invite")
	rec = bob.get(u.RequestURI())
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `name="invite" value="`+invite+`"`) {
		t.Fatalf("GET %s: %d\n%s", link, rec.Code, rec.Body)
	}
	bob.signUp("bob", goodPassword, invite)
	if a.user(t, "bob").Admin {
		t.Error("an invited account is an admin")
	}
	if page := admin.get("/admin").Body.String(); !strings.Contains(page, "Used by bob") {
		t.Errorf("/admin does not show the invite as used by bob:\n%s", page)
	}

	carl := a.client(t, "192.0.2.3")
	rec = carl.get(u.RequestURI())
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "This invite link is not valid") {
		t.Errorf("GET a used invite: %d\n%s", rec.Code, rec.Body)
	}
	rec = carl.post("/signup", url.Values{"name": {"carl"}, "password": {goodPassword}, "invite": {invite}})
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "This invite link is not valid") {
		t.Errorf("POST a used invite: %d\n%s", rec.Code, rec.Body)
	}
	if _, err := a.store.UserByName(t.Context(), "carl"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("a reused invite created an account: %v", err)
	}
	if carl.session() != "" {
		t.Error("a reused invite signed someone in")
	}
}

func TestOpenAndClosedRegistration(t *testing.T) {
	t.Parallel()
	t.Run("open", func(t *testing.T) {
		t.Parallel()
		a := newUIApp(t, nil, Options{Registration: accounts.RegistrationOpen})
		a.client(t, "192.0.2.1").signUp("ann", goodPassword, "")
		bob := a.client(t, "192.0.2.2")
		if body := bob.get("/signin").Body.String(); !strings.Contains(body, `href="`+testBase+`signup">Create one`) {
			t.Error("the sign-in page does not offer sign-up in open mode")
		}
		bob.signUp("bob", goodPassword, "")
		if !a.user(t, "ann").Admin || a.user(t, "bob").Admin {
			t.Error("only the first account should be an admin")
		}
	})
	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		a := newUIApp(t, nil, Options{Registration: accounts.RegistrationClosed})
		c := a.client(t, "192.0.2.1")
		for _, rec := range []*httptest.ResponseRecorder{
			c.get("/signup"),
			c.post("/signup", url.Values{"name": {"ann"}, "password": {goodPassword}}),
		} {
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "Registration is closed") {
				t.Errorf("sign-up when closed: %d\n%s", rec.Code, rec.Body)
			}
		}
		if n, _ := a.store.CountUsers(t.Context()); n != 0 || c.session() != "" {
			t.Errorf("closed registration let the first account in: %d accounts", n)
		}
	})
}

func TestSignUpValidation(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{Registration: accounts.RegistrationOpen, AuthRate: 100})
	a.client(t, "192.0.2.1").signUp("ann", goodPassword, "")

	tests := []struct {
		name, password string
		field, msg     string // the field marked invalid and its message
	}{
		{"", goodPassword, "name", "Use 1 to 64 letters, digits, dots, dashes or underscores."},
		{"two words", goodPassword, "name", "Use 1 to 64 letters, digits, dots, dashes or underscores."},
		{"<b>x</b>", goodPassword, "name", "Use 1 to 64 letters, digits, dots, dashes or underscores."},
		{strings.Repeat("a", 65), goodPassword, "name", "Use 1 to 64 letters, digits, dots, dashes or underscores."},
		{"bob", "short", "password", "The password must be at least 10 characters long."},
		{"bob", strings.Repeat("p", 73), "password", "The password must be at most 72 bytes long."},
		{"ann", goodPassword, "name", "This name is taken. Choose another."},
		{"ANN", goodPassword, "name", "This name is taken. Choose another."},
	}
	for _, tt := range tests {
		c := a.client(t, "192.0.2.2")
		c.get("/signup")
		rec := c.post("/signup", url.Values{"name": {tt.name}, "password": {tt.password}})
		body := rec.Body.String()
		if rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("sign up %q/%q: %d, want 422", tt.name, tt.password, rec.Code)
			continue
		}
		other := map[string]string{"name": "password", "password": "name"}[tt.field]
		if !strings.Contains(body, `aria-invalid="true" aria-describedby="`+tt.field+`-error"`) {
			t.Errorf("sign up %q: the %s field is not marked invalid", tt.name, tt.field)
		}
		if strings.Contains(body, `aria-describedby="`+other+`-error"`) {
			t.Errorf("sign up %q: the %s field is marked invalid too", tt.name, other)
		}
		if want := `<p class="field-error" id="` + tt.field + `-error">` + html.EscapeString(tt.msg) + `</p>`; !strings.Contains(body, want) {
			t.Errorf("sign up %q/%q: page lacks %s", tt.name, tt.password, want)
		}
		if tt.name != "" && !strings.Contains(body, `name="name" value="`+html.EscapeString(tt.name)+`"`) {
			t.Errorf("sign up %q: the name typed is not kept", tt.name)
		}
		if strings.Contains(body, tt.password) {
			t.Errorf("sign up %q: the password is echoed back", tt.name)
		}
		if c.session() != "" {
			t.Errorf("sign up %q: signed in despite the error", tt.name)
		}
	}
	if n, _ := a.store.CountUsers(t.Context()); n != 1 {
		t.Errorf("%d accounts after invalid sign-ups, want 1", n)
	}
}

// newAccount stores an account with a real password.
func newAccount(t *testing.T, store *db.DB, name string) db.User {
	t.Helper()
	hash, err := accounts.HashPassword(goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	u, err := store.CreateUser(t.Context(), name, hash, accounts.NewToken(), "")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// browserTarget resolves a redirect the way a browser does: tabs and
// newlines are dropped from URLs before they are parsed.
func browserTarget(t *testing.T, base, loc string) *url.URL {
	t.Helper()
	loc = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.TrimSpace(loc))
	b, _ := url.Parse(base)
	u, err := b.Parse(strings.ReplaceAll(loc, `\`, "/"))
	if err != nil {
		t.Fatalf("redirect to %q: %v", loc, err)
	}
	return u
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{AuthRate: 100})
	newAccount(t, a.store, "ann")

	c := a.client(t, "192.0.2.1")
	if got := location(t, c.get("/add")); got != testBase+"signin?next=%2Fadd" {
		t.Errorf("GET /add signed out: redirected to %q", got)
	}
	for _, tt := range []struct{ name, password string }{{"ann", "wrong password"}, {"nobody", goodPassword}, {"", ""}} {
		rec := c.post("/signin", url.Values{"name": {tt.name}, "password": {tt.password}})
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), "That name and password do not match an account.") {
			t.Errorf("sign in as %q/%q: %d\n%s", tt.name, tt.password, rec.Code, rec.Body)
		}
		if setCookie(rec, sessionCookie) != nil {
			t.Errorf("sign in as %q/%q set a session cookie", tt.name, tt.password)
		}
	}

	rec := c.get("/signin?next=%2Fadd")
	if !strings.Contains(rec.Body.String(), `name="next" value="/add"`) {
		t.Errorf("the sign-in form does not carry next:\n%s", rec.Body)
	}
	if got := location(t, c.post("/signin", url.Values{"name": {"Ann"}, "password": {goodPassword}, "next": {"/add"}})); got != testBase+"add" {
		t.Errorf("after sign-in, redirected to %q, want %sadd", got, testBase)
	}
	if rec := c.get("/add"); rec.Code != http.StatusOK {
		t.Errorf("GET /add signed in: %d", rec.Code)
	}
	if got := location(t, c.get("/signin?next=%2Fopml")); got != testBase+"opml" {
		t.Errorf("GET /signin signed in: redirected to %q, want %sopml", got, testBase)
	}

	offsite := []string{
		"//evil.example", "https://evil.example", `/\evil.example`, "/\t/evil.example", "/\n/evil.example", `\\evil.example`,
		"//evil.example/", "http://evil.example/x", " //evil.example", "javascript:alert(1)", "evil.example",
	}
	// Signed in, GET /signin redirects at once through the same check.
	for _, next := range offsite {
		loc := location(t, c.get("/signin?next="+url.QueryEscape(next)))
		if u := browserTarget(t, testBase, loc); u.Host != "tidings.test" || u.Scheme != "http" {
			t.Errorf("GET /signin?next=%q signed in: redirected to %q, which leaves tidings", next, loc)
		}
	}
	for _, next := range offsite[:6] {
		d := a.client(t, "192.0.2.2")
		loc := location(t, d.post("/signin", url.Values{"name": {"ann"}, "password": {goodPassword}, "next": {next}}))
		if u := browserTarget(t, testBase, loc); u.Host != "tidings.test" || u.Scheme != "http" {
			t.Errorf("sign in with next=%q: redirected to %q, which leaves tidings", next, loc)
		}
	}
}

func TestSignOutEndsSession(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{AuthRate: 100})
	newAccount(t, a.store, "ann")
	c := a.client(t, "192.0.2.1")
	c.get("/signin")
	location(t, c.post("/signin", url.Values{"name": {"ann"}, "password": {goodPassword}}))
	old := c.session()
	if rec := serveAs(t, a.h, "/add", old); rec.Code != http.StatusOK {
		t.Fatalf("GET /add with the session: %d", rec.Code)
	}

	c.get("/")
	rec := c.post("/signout", nil)
	if got := location(t, rec); got != testBase+"?done=signed-out" {
		t.Errorf("after sign-out, redirected to %q", got)
	}
	if ck := setCookie(rec, sessionCookie); ck == nil || ck.Value != "" || ck.Expires.After(time.Now()) {
		t.Errorf("sign-out does not clear the session cookie: %q", rec.Header().Values("Set-Cookie"))
	}
	if c.session() != "" {
		t.Error("the browser still holds a session cookie")
	}
	if rec := serveAs(t, a.h, "/add", old); rec.Code != http.StatusSeeOther {
		t.Errorf("GET /add with the old session cookie: %d, want 303 to sign in", rec.Code)
	}
	if body := serveAs(t, a.h, "/", old).Body.String(); strings.Contains(body, "Sign out") {
		t.Error("the old session cookie still signs in")
	}
}

func TestAuthRateLimit(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{AuthRate: 3})
	newAccount(t, a.store, "ann")
	wrong := url.Values{"name": {"ann"}, "password": {"wrong password"}}

	c := a.client(t, "192.0.2.1")
	for i := range 3 {
		if rec := c.post("/signin", wrong); rec.Code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d, want 401", i+1, rec.Code)
		}
	}
	rec := c.post("/signin", wrong)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), "Too many attempts") {
		t.Errorf("attempt 4: %d, want 429 with a message\n%s", rec.Code, rec.Body)
	}
	// The right password is refused too while limited.
	right := url.Values{"name": {"ann"}, "password": {goodPassword}}
	if rec := c.post("/signin", right); rec.Code != http.StatusTooManyRequests {
		t.Errorf("right password while limited: %d, want 429", rec.Code)
	}
	if rec := c.post("/signup", url.Values{"name": {"bob"}, "password": {goodPassword}}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("sign-up while limited: %d, want 429", rec.Code)
	}
	for _, h := range []http.Header{
		{"X-Forwarded-For": {"198.51.100.7"}},
		{"X-Real-Ip": {"198.51.100.8"}},
		{"Forwarded": {"for=198.51.100.9"}},
	} {
		form := url.Values{"csrf": {c.token()}}
		for k, v := range right {
			form[k] = v
		}
		if rec := c.postRaw("/signin", form, h); rec.Code != http.StatusTooManyRequests {
			t.Errorf("with %v: %d, want 429", h, rec.Code)
		}
	}

	other := a.client(t, "192.0.2.99")
	if rec := other.post("/signin", wrong); rec.Code != http.StatusUnauthorized {
		t.Errorf("another address: %d, want 401", rec.Code)
	}
	if rec := other.post("/signin", right); rec.Code != http.StatusSeeOther {
		t.Errorf("another address, right password: %d, want 303", rec.Code)
	}
}

func TestTrustedProxyForwardedFor(t *testing.T) {
	t.Parallel()
	_, proxy, _ := net.ParseCIDR("192.0.2.0/24")
	a := newUIApp(t, nil, Options{AuthRate: 1, TrustedProxies: []*net.IPNet{proxy}})
	newAccount(t, a.store, "ann")
	wrong := url.Values{"name": {"ann"}, "password": {"wrong password"}}
	c := a.client(t, "192.0.2.1")
	attempt := func(from string) int {
		form := url.Values{"csrf": {c.token()}}
		for k, v := range wrong {
			form[k] = v
		}
		return c.postRaw("/signin", form, http.Header{"X-Forwarded-For": {from}}).Code
	}
	if code := attempt("198.51.100.7"); code != http.StatusUnauthorized {
		t.Fatalf("first attempt from a client behind the proxy: %d", code)
	}
	if code := attempt("198.51.100.7"); code != http.StatusTooManyRequests {
		t.Errorf("second attempt from the same client: %d, want 429", code)
	}
	if code := attempt("198.51.100.8"); code != http.StatusUnauthorized {
		t.Errorf("another client behind the trusted proxy: %d, want 401 (limited on its own)", code)
	}
}
