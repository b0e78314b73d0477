package web

import (
	"net/http"
	"net/url"
	"testing"

	"tidings/accounts"
)

// TestCSRFTokenIsBoundToTheSession: a token that is not derived from the
// victim's own session is refused, however it got into the request: a
// cookie planted beside the session with the same value in the form (the
// double-submit bypass), a real pair an anonymous browser was given, or
// another user's token. Nothing is unfollowed; the real form still works.
func TestCSRFTokenIsBoundToTheSession(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{Registration: accounts.RegistrationOpen})
	annSession := signIn(t, fx.store, "ann")
	bobSession := signIn(t, fx.store, "bob")
	ann := a.user(t, "ann")
	ctx := t.Context()
	sites, err := fx.store.Sites(ctx)
	if err != nil || len(sites) != 1 {
		t.Fatalf("sites %v, %v", sites, err)
	}
	unfollow := "/site/" + sites[0].PublicID + "/unfollow"
	following := func() bool {
		t.Helper()
		ok, err := fx.store.Follows(ctx, ann.ID, sites[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	anon := a.client(t, "192.0.2.60")
	anon.get("/signin")
	var anonCookie string
	for _, ck := range anon.jar.Cookies(a.base) {
		if ck.Name == csrfCookie {
			anonCookie = ck.Value
		}
	}
	if anonCookie == "" {
		t.Fatal("an anonymous page set no pre-session cookie")
	}
	bob := a.signedIn(t, bobSession)
	bob.get("/")

	for _, tt := range []struct {
		name, cookie, token string
	}{
		{"planted cookie, same value in the form", "X", "X"},
		{"planted cookie with its real anonymous token", anonCookie, anon.token()},
		{"planted cookie, token derived from it", "X", csrfToken("X")},
		{"another user's token", "", bob.token()},
		{"no token", "", ""},
	} {
		c := a.signedIn(t, annSession)
		if tt.cookie != "" {
			c.jar.SetCookies(a.base, []*http.Cookie{{Name: csrfCookie, Value: tt.cookie, Path: "/"}})
		}
		rec := submit(c, unfollow, nil, "", tt.token, nil)
		if rec.Code != http.StatusForbidden || rec.Header().Get("Location") != "" {
			t.Errorf("%s: %d (Location %q), want 403", tt.name, rec.Code, rec.Header().Get("Location"))
		}
		if !following() {
			t.Fatalf("%s: the forged post unfollowed the site", tt.name)
		}
	}

	// The page's own form goes through, whatever cookie was planted.
	c := a.signedIn(t, annSession)
	c.jar.SetCookies(a.base, []*http.Cookie{{Name: csrfCookie, Value: "X", Path: "/"}})
	if rec := c.get(unfollow); rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", unfollow, rec.Code)
	}
	if tok := c.token(); tok == anon.token() || tok == bob.token() || tok == csrfToken("X") {
		t.Errorf("ann's token %q is another browser's", tok)
	}
	location(t, c.post(unfollow, nil))
	if following() {
		t.Error("the real form did not unfollow the site")
	}
}

// TestAnonymousFormsUseThePreSessionCookie: sign in works with the token
// bound to the browser's pre-session cookie, and not with that token sent
// from a browser holding another cookie.
func TestAnonymousFormsUseThePreSessionCookie(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	newAccount(t, a.store, "ann")
	c := a.client(t, "192.0.2.61")
	c.get("/signin")
	form := url.Values{"name": {"ann"}, "password": {goodPassword}, "csrf": {c.token()}}

	other := a.client(t, "192.0.2.62")
	other.get("/signin")
	if rec := other.postRaw("/signin", form, nil); rec.Code != http.StatusForbidden || setCookie(rec, sessionCookie) != nil {
		t.Errorf("another browser's token: %d, want 403 and no session", rec.Code)
	}
	if rec := c.postRaw("/signin", form, nil); rec.Code != http.StatusSeeOther || c.session() == "" {
		t.Fatalf("the browser's own token: %d, want 303 and a session\n%s", rec.Code, rec.Body)
	}
	// Signed in, the anonymous token no longer counts.
	if rec := c.postRaw("/signout", url.Values{"csrf": {form.Get("csrf")}}, nil); rec.Code != http.StatusForbidden {
		t.Errorf("sign out with the pre-session token: %d, want 403", rec.Code)
	}
	c.get("/")
	if rec := c.post("/signout", nil); rec.Code != http.StatusSeeOther || c.session() != "" {
		t.Errorf("sign out with the session's token: %d", rec.Code)
	}
}
