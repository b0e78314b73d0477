package web

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestTokensPage: a person makes a token on the tokens page, which shows
// it once, in the answer to the form; it opens the API as them; the page
// lists it without the token itself; revoking it there closes the API to
// it; and a name is required.
func TestTokensPage(t *testing.T) {
	a := newUIApp(t, nil, Options{})
	c := a.client(t, "192.0.2.1")
	c.signUp("ann", goodPassword, "")
	c.get("/tokens")
	rec := c.post("/tokens", url.Values{"name": {""}})
	if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "Give the token a name") {
		t.Errorf("a token without a name: %d", rec.Code)
	}
	rec = c.post("/tokens", url.Values{"name": {"reading script"}})
	body := html.UnescapeString(rec.Body.String())
	m := regexp.MustCompile(`value="(tid_[A-Za-z0-9_-]+)"`).FindStringSubmatch(body)
	if rec.Code != http.StatusOK || m == nil {
		t.Fatalf("make a token: %d, no token shown\n%s", rec.Code, body)
	}
	token := m[1]
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page showing a token is cacheable: %q", cc)
	}
	api := newAPIServer(t, a).as(token)
	var me struct{ Name string }
	api.get("/me").json(t, &me)
	if me.Name != "ann" {
		t.Errorf("the token opens the API as %q", me.Name)
	}

	page := html.UnescapeString(c.get("/tokens").Body.String())
	if !strings.Contains(page, "reading script") || strings.Contains(page, token) {
		t.Errorf("the tokens page lists the token's name: %v; shows the token again: %v", strings.Contains(page, "reading script"), strings.Contains(page, token))
	}
	revoke := regexp.MustCompile(`action="[^"]*(/tokens/\d+/revoke)"`).FindStringSubmatch(page)
	if revoke == nil {
		t.Fatalf("no revoke form on\n%s", page)
	}
	if rec := c.post(revoke[1], nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("revoke: %d", rec.Code)
	}
	api.call(http.MethodGet, "/me", "", nil, false).problem(t, http.StatusUnauthorized, "unauthorized")
	if rec := c.post(revoke[1], nil); rec.Code != http.StatusNotFound {
		t.Errorf("revoke again: %d, want 404", rec.Code)
	}
}
