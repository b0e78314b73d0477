package web

import (
	"html"
	"strconv"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// TestLearnedWidgetsOnTheSitePage: the rules a harvest learned are listed
// under "What tidings leaves out", a widget (found by reading a page
// twice) told apart from a line that changed on many pages, and an admin
// who follows the site removes one: it is gone from the page and from
// what the next harvest applies.
func TestLearnedWidgetsOnTheSitePage(t *testing.T) {
	store := openStore(t)
	a := newUIApp(t, store, Options{})
	ann := a.client(t, "192.0.2.1")
	ann.signUp("ann", goodPassword, "") // the first account: an admin
	site := storingSite(t, store, "https://moths.example/", 100, a.user(t, "ann"))
	path := "/" + sitePath(site)
	var widget db.IgnoreRule
	for _, p := range []string{"Quote of the day: …", "between “Our banner” and “Thanks for reading”", "parsnip #.#.#"} {
		r, err := store.AddIgnoreRule(t.Context(), site.ID, 0, db.IgnoreLearned, p, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if widget.ID == 0 {
			widget = r
		}
	}
	page := html.UnescapeString(ann.get(path).Body.String())
	for _, want := range []string{
		"<code>Quote of the day: …</code>\n<span class=\"muted\">for everyone: learned: this changed between two readings of a page moments apart",
		"<code>between “Our banner” and “Thanks for reading”</code>\n<span class=\"muted\">for everyone: learned: this changed between two readings",
		"<code>parsnip #.#.#</code>\n<span class=\"muted\">for everyone: learned: this line changed on many pages at once",
		`aria-label="Remove the rule Quote of the day: …"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the site page lacks %q:\n%s", want, page)
		}
	}
	location(t, ann.post(path+"/ignore/"+strconv.FormatInt(widget.ID, 10)+"/remove", nil))
	rules, err := store.IgnoreRules(t.Context(), site.ID)
	if err != nil || len(rules) != 2 || rules[0].Pattern == widget.Pattern || rules[1].Pattern == widget.Pattern {
		t.Errorf("after the removal the rules are %+v (%v)", rules, err)
	}
	if page := html.UnescapeString(ann.get(path).Body.String()); strings.Contains(page, "<code>Quote of the day: …</code>") {
		t.Errorf("the removed widget is still listed:\n%s", page)
	}
}
