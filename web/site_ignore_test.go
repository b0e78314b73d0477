package web

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// TestIgnoreRulesOnTheSitePage: a follower adds a rule from the site's
// page; a rule that cannot be taken is answered on the page with why,
// the form kept as filled; someone who does not follow the site can read
// its rules but not change them; a forged form is refused.
func TestIgnoreRulesOnTheSitePage(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{})
	ann := a.client(t, "192.0.2.1")
	ann.signUp("ann", goodPassword, "")
	site := storingSite(t, store, "https://moths.example/", 100, a.user(t, "ann"))
	path := "/" + sitePath(site)

	ann.get(path)
	rec := ann.post(path+"/ignore", url.Values{"kind": {db.IgnoreCSS}, "pattern": {"div["}})
	body := html.UnescapeString(rec.Body.String())
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "That is not a CSS selector tidings can read") ||
		!strings.Contains(body, `value="div["`) || !strings.Contains(body, `<option value="css" selected>`) {
		t.Errorf("a bad selector: %d\n%s", rec.Code, body)
	}
	if got := location(t, ann.post(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"  Mood:  "}})); got != testBase+sitePath(site)+"?rule=added#ignore" {
		t.Errorf("a good rule went to %s", got)
	}
	rules, err := store.IgnoreRules(t.Context(), site.ID)
	if err != nil || len(rules) != 1 || rules[0].Pattern != "Mood:" || rules[0].Kind != db.IgnoreText {
		t.Fatalf("rules stored %+v (%v), want the text Mood:", rules, err)
	}

	link, err := url.Parse(inviteLink(t, ann))
	if err != nil {
		t.Fatal(err)
	}
	bob := a.client(t, "192.0.2.2")
	bob.signUp("bob", goodPassword, link.Query().Get("invite"))
	page := html.UnescapeString(bob.get(path).Body.String())
	if !strings.Contains(page, "<code>Mood:</code>") || strings.Contains(page, "Add rule") || strings.Contains(page, "/remove") {
		t.Errorf("bob, who does not follow the site, sees its rules as:\n%s", page)
	}
	if rec := bob.post(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"webring"}}); rec.Code != http.StatusNotFound {
		t.Errorf("bob added a rule: %d", rec.Code)
	}
	if rec := bob.post(path+"/ignore/"+strconv.FormatInt(rules[0].ID, 10)+"/remove", nil); rec.Code != http.StatusNotFound {
		t.Errorf("bob removed a rule: %d", rec.Code)
	}
	if rec := ann.postRaw(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"webring"}, "csrf": {"forged"}}, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a forged form: %d", rec.Code)
	}
	if got := location(t, ann.post(path+"/ignore/"+strconv.FormatInt(rules[0].ID, 10)+"/remove", nil)); !strings.HasSuffix(got, "?rule=removed#ignore") {
		t.Errorf("removing went to %s", got)
	}
	if rules, _ := store.IgnoreRules(t.Context(), site.ID); len(rules) != 0 {
		t.Errorf("rules left %+v", rules)
	}
}

// TestCostlyRulesOnTheSitePage: a selector or a pattern that would cost
// too much is refused from the form with why; a rule a harvest switched
// off stays listed with its reason.
func TestCostlyRulesOnTheSitePage(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{})
	ann := a.client(t, "192.0.2.1")
	ann.signUp("ann", goodPassword, "")
	site := storingSite(t, store, "https://moths.example/", 100, a.user(t, "ann"))
	path := "/" + sitePath(site)
	ann.get(path)
	for _, bad := range []struct{ kind, pattern, why string }{
		{db.IgnoreCSS, "x * * * * * * * * * * * * *", "has 14 parts; a rule's selector has at most 5"},
		{db.IgnoreCSS, "div:has(.counter)", ":has costs too much on a big page"},
		{db.IgnoreText, "/.{0,1000}visits/", "write its repetitions smaller"},
	} {
		rec := ann.post(path+"/ignore", url.Values{"kind": {bad.kind}, "pattern": {bad.pattern}})
		if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, bad.why) {
			t.Errorf("%s: %d, want 422 saying %q\n%s", bad.pattern, rec.Code, bad.why, body)
		}
	}
	if rules, _ := store.IgnoreRules(t.Context(), site.ID); len(rules) != 0 {
		t.Fatalf("costly rules were stored: %+v", rules)
	}

	r, err := store.AddIgnoreRule(t.Context(), site.ID, db.IgnoreText, "/visits: .{0,100}x/", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const reason = "switched off at the harvest of 2026-11-28 12:00 UTC: matching it cost too much"
	if err := store.SwitchOffRule(t.Context(), site.ID, r.ID, reason); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(ann.get(path).Body.String())
	if !strings.Contains(page, "<code>/visits: .{0,100}x/</code>") || !strings.Contains(page, "Switched off:</strong> "+reason) {
		t.Errorf("the site's page does not show the rule switched off with its reason:\n%s", page)
	}
}
