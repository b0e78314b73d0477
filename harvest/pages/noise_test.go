package pages

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
)

// noisyPage is a page of a hand-made site whose footer carries the time
// the page was generated and a visitor counter, each the page's own.
func noisyPage(title, generated string, visits int, body ...string) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>` + title + `</title></head><body><nav><a href="/">Home</a></nav><main><h1>` + title + `</h1>`)
	for _, b := range body {
		sb.WriteString(`<p>` + b + `</p>`)
	}
	fmt.Fprintf(&sb, `</main><footer><p>Page generated %s</p><p>This page has been visited %d times</p></footer></body></html>`, generated, visits)
	return sb.String()
}

var mothNames = []string{"Luna moth", "Atlas moth", "Io moth", "Polyphemus moth", "Cecropia moth", "Hawk moth",
	"Tiger moth", "Puss moth", "Emperor moth", "Garden carpet", "Peppered moth"}

// serveNoisy serves the home page and its eleven moths at one version:
// every page generated at its own second and counted anew, and the home
// page listing the two moths updated last.
func serveNoisy(s *watchSite, version int, edit string) {
	stamp := func(i int) string { return fmt.Sprintf("2026-11-%02d 10:%02d:%02d", 20+version, i, 7*version+i) }
	recent := []string{mothNames[version%11] + fmt.Sprintf(" (%d Nov)", 20+version), mothNames[(version+3)%11] + fmt.Sprintf(" (%d Nov)", 19+version)}
	var links []string
	for i := range mothNames {
		links = append(links, fmt.Sprintf(`<a href="/m%d.html">%s</a>`, i, mothNames[i]))
	}
	s.set("/", noisyPage("Moths of the garden", stamp(0), 1000+37*version,
		"Welcome to the moths of my garden.", "Recently updated:", recent[0], recent[1], "All the moths: "+strings.Join(links, ", ")))
	for i, name := range mothNames {
		text := fmt.Sprintf("The %s visits the garden in summer.", strings.ToLower(name))
		if i == 4 && edit != "" {
			text = edit
		}
		s.set(fmt.Sprintf("/m%d.html", i), noisyPage(name, stamp(i+1), 40+i*7+version*(i+1), text, "It rests by day."))
	}
}

// TestNoiseMakesNoEntry: a 12-page watched site whose second version
// changes only its pages' generation times, their visitor counters and
// the home page's "recently updated" list gives no entry; its third,
// which also edits one paragraph, gives exactly that page's, whose diff
// holds the sentence and neither the counter nor the time.
func TestNoiseMakesNoEntry(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	serveNoisy(e.site, 1, "")
	e.follow("/")
	if n := len(e.watched()); n != 12 {
		t.Fatalf("%d pages watched, want 12", n)
	}
	serveNoisy(e.site, 2, "")
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 0 {
		t.Errorf("the noise alone made entries: %q", fresh)
	}
	// The counter's line, changed on every page, is kept as the site's:
	// its page shows it, and later harvests know it.
	site, err := e.store.SiteByURL(context.Background(), e.site.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := e.store.IgnoreRules(context.Background(), site.ID)
	if err != nil {
		t.Fatal(err)
	}
	var learned []string
	for _, r := range rules {
		if r.Kind == db.IgnoreLearned {
			learned = append(learned, r.Pattern)
		}
	}
	if !slices.Contains(learned, "This page has been visited # times") {
		t.Errorf("learned %q, want the counter's shape", learned)
	}
	serveNoisy(e.site, 3, "The cecropia moth is the largest moth of the garden.")
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 1 || fresh[0] != "updated /m4.html" {
		t.Fatalf("the edit made entries %q, want only /m4.html updated", fresh)
	}
	c := e.exported("/m4.html", "updated")
	changetest.Text(t, c, "Cecropia moth", db.TextChanged,
		[]string{"The cecropia moth visits the garden in summer."},
		[]string{"The cecropia moth is the largest moth of the garden."})
}

// fresh lists the stored changes that are not history, as changes does.
func (e *watchEnv) fresh() []string {
	var out []string
	for _, c := range e.changes() {
		if !strings.HasSuffix(c, "(seen)") {
			out = append(out, c)
		}
	}
	return out
}

// ringPage is a page whose footer carries a webring's banner, which
// names another member at every visit, and the author's mood.
func ringPage(title, ring, mood string, body ...string) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>` + title + `</title></head><body><main><h1>` + title + `</h1>`)
	for _, b := range body {
		sb.WriteString(`<p>` + b + `</p>`)
	}
	sb.WriteString(`</main><footer><div class="webring"><p>Moth ring: ` + ring + `</p></div><p>Mood: ` + mood + `</p></footer></body></html>`)
	return sb.String()
}

// TestIgnoreRulesOfAPerson: a person's rules for a site, a text and a
// CSS selector given after the follow, leave the mood line and the
// webring's banner out of the next harvest's comparison: the one real
// edit is found, and its diff holds only it.
func TestIgnoreRulesOfAPerson(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	rings := []string{"Kestrel's moths", "Owl's moths", "Bat's garden", "Night flyers"}
	serve := func(v int, edit bool) {
		links := `<a href="/a.html">a</a> <a href="/b.html">b</a> <a href="/c.html">c</a>`
		e.site.set("/", ringPage("Moth pages", rings[v%4], fmt.Sprint("sleepy ", v), "My moth pages: "+links))
		for i, p := range []string{"a", "b", "c"} {
			body := []string{"Notes on moth " + p + "."}
			if edit && p == "b" {
				body = append(body, "Moth b came back in November.")
			}
			e.site.set("/"+p+".html", ringPage("Moth "+p, rings[(v+i+1)%4], fmt.Sprint("happy ", v+i), body...))
		}
	}
	serve(0, false)
	e.follow("/")
	site, err := e.store.SiteByURL(context.Background(), e.site.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	for kind, pattern := range map[string]string{db.IgnoreText: "mood:", db.IgnoreCSS: ".webring"} {
		if _, err := e.store.AddIgnoreRule(context.Background(), site.ID, 0, kind, pattern, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	serve(1, true)
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 1 || fresh[0] != "updated /b.html" {
		c := e.exported("/c.html", "updated")
		t.Fatalf("entries %q, want only /b.html updated; /c.html's diff %s", fresh, c.Diff)
	}
	changetest.Text(t, e.exported("/b.html", "updated"), "Moth b", db.TextChanged, nil, []string{"Moth b came back in November."})
	// Later harvests compare texts that no longer hold the banner.
	serve(2, false)
	e.harvest()
	fresh := e.fresh()
	if len(fresh) != 2 || fresh[0] != "updated /b.html" || fresh[1] != "updated /b.html" {
		t.Fatalf("entries %q, want /b.html updated twice (the sentence added, then removed)", fresh)
	}
}
