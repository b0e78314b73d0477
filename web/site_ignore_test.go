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
// page, their own; a rule that cannot be taken is answered on the page
// with why, the form kept as filled; an admin may add one for everyone.
// Another person sees the rules for everyone but not Ann's own, and
// removes neither; someone who does not follow the site changes nothing;
// a forged form is refused.
func TestIgnoreRulesOnTheSitePage(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{})
	ann := a.client(t, "192.0.2.1")
	ann.signUp("ann", goodPassword, "") // the first account: an admin
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
	location(t, ann.post(path+"/ignore", url.Values{"kind": {db.IgnoreCSS}, "pattern": {".webring"}, "everyone": {"1"}}))
	rules, err := store.IgnoreRules(t.Context(), site.ID)
	annID := a.user(t, "ann").ID
	if err != nil || len(rules) != 2 || rules[0].Pattern != "Mood:" || rules[0].Kind != db.IgnoreText || rules[0].UserID != annID ||
		rules[1].Pattern != ".webring" || rules[1].UserID != 0 {
		t.Fatalf("rules stored %+v (%v), want Ann's text Mood: and the selector .webring for everyone", rules, err)
	}
	page := html.UnescapeString(ann.get(path).Body.String())
	if !strings.Contains(page, "<code>Mood:</code>\n<span class=\"muted\">yours:") || !strings.Contains(page, "<code>.webring</code>\n<span class=\"muted\">for everyone:") {
		t.Errorf("Ann's page does not tell her rule from the one for everyone:\n%s", page)
	}

	link, err := url.Parse(inviteLink(t, ann))
	if err != nil {
		t.Fatal(err)
	}
	bob := a.client(t, "192.0.2.2")
	bob.signUp("bob", goodPassword, link.Query().Get("invite"))
	page = html.UnescapeString(bob.get(path).Body.String())
	if strings.Contains(page, "<code>Mood:</code>") || !strings.Contains(page, "<code>.webring</code>") || strings.Contains(page, "Add rule") || strings.Contains(page, "/remove") {
		t.Errorf("bob, who does not follow the site, sees its rules as:\n%s", page)
	}
	if rec := bob.post(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"webring"}}); rec.Code != http.StatusNotFound {
		t.Errorf("bob added a rule: %d", rec.Code)
	}
	if err := store.Follow(t.Context(), a.user(t, "bob").ID, site.ID); err != nil {
		t.Fatal(err)
	}
	page = html.UnescapeString(bob.get(path).Body.String())
	if strings.Contains(page, "<code>Mood:</code>") || strings.Contains(page, "/remove") || !strings.Contains(page, "Add rule") || strings.Contains(page, `name="everyone"`) {
		t.Errorf("bob, following, sees the rules as:\n%s", page)
	}
	for _, r := range rules {
		if rec := bob.post(path+"/ignore/"+strconv.FormatInt(r.ID, 10)+"/remove", nil); rec.Code != http.StatusNotFound {
			t.Errorf("bob removed %s: %d", r.Pattern, rec.Code)
		}
	}
	rec = bob.post(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"Mood:"}, "everyone": {"1"}})
	if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "Only an admin gives a site rules for everyone") {
		t.Errorf("bob asked for a rule for everyone: %d", rec.Code)
	}
	location(t, bob.post(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"Mood:"}}))
	if mine, _ := store.RulesFor(t.Context(), site.ID, a.user(t, "bob").ID); len(mine) != 2 || mine[1].Pattern != "Mood:" || mine[1].UserID != a.user(t, "bob").ID {
		t.Errorf("bob's rules %+v, want the one for everyone and his own Mood:", mine)
	}

	if rec := ann.postRaw(path+"/ignore", url.Values{"kind": {db.IgnoreText}, "pattern": {"webring"}, "csrf": {"forged"}}, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a forged form: %d", rec.Code)
	}
	for _, r := range rules {
		if got := location(t, ann.post(path+"/ignore/"+strconv.FormatInt(r.ID, 10)+"/remove", nil)); !strings.HasSuffix(got, "?rule=removed#ignore") {
			t.Errorf("removing went to %s", got)
		}
	}
	if rules, _ := store.IgnoreRules(t.Context(), site.ID); len(rules) != 1 || rules[0].Pattern != "Mood:" || rules[0].UserID != a.user(t, "bob").ID {
		t.Errorf("rules left %+v, want only bob's own", rules)
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

	r, err := store.AddIgnoreRule(t.Context(), site.ID, 0, db.IgnoreText, "/visits: .{0,100}x/", time.Now())
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
