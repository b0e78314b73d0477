package pages

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
)

var (
	quotes  = []string{"The early bird catches the worm.", "Fortune favours the bold.", "Slow and steady wins the race.", "Look before you leap.", "Still waters run deep."}
	banners = []string{"Seed swap this Sunday!", "New: moth photos from the meadow", "Sign the guestbook, please", "Best viewed at night"}
)

// widgetPage is a page of a hand-made site with three widgets that change
// at every read: a quote of the day, a webring naming a random member, and
// a banner with nothing of its own to tell it by but where it stands.
func widgetPage(title string, body ...string) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>` + title + `</title></head><body><header><p>Moth pages</p><p class="banner">%BANNER%</p><p>Welcome, night owl</p></header><main><h1>` + title + `</h1>`)
	for _, b := range body {
		sb.WriteString(`<p>` + b + `</p>`)
	}
	sb.WriteString(`</main><footer><p>Quote of the day: %QUOTE%</p><p>Moth ring: visit %MEMBER%</p></footer></body></html>`)
	return sb.String()
}

// fillWidgets writes a new quote, member and banner at every request.
func fillWidgets(body string, n int) string {
	return strings.NewReplacer("%QUOTE%", quotes[n%len(quotes)], "%BANNER%", banners[(n*3)%len(banners)],
		"%MEMBER%", fmt.Sprintf("Kestrel's moths no. %c", 'A'+rune(n%26))).Replace(body)
}

// serveWidgets serves a home page and five moth pages, one of them with
// an edit.
func serveWidgets(s *watchSite, edit string) {
	names := []string{"Luna moth", "Atlas moth", "Io moth", "Hawk moth", "Tiger moth"}
	var links []string
	for i, n := range names {
		links = append(links, fmt.Sprintf(`<a href="/m%d.html">%s</a>`, i, n))
	}
	s.set("/", widgetPage("Moths of the garden", "My moths: "+strings.Join(links, ", ")))
	for i, n := range names {
		body := []string{fmt.Sprintf("The %s rests by day.", strings.ToLower(n))}
		if i == 2 && edit != "" {
			body = append(body, edit)
		}
		s.set(fmt.Sprintf("/m%d.html", i), widgetPage(n, body...))
	}
}

// TestWidgetsMakeNoEntry: a six-page watched site whose every read
// brings a new quote of the day, webring member and banner. Its second
// version changes nothing else and gives no entry; what changed between
// two reads is learned as the site's and listed with its rules; the third
// version's one edit is one entry whose diff holds the sentence and no
// widget; the fourth, unchanged, none.
func TestWidgetsMakeNoEntry(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.fill = fillWidgets
	serveWidgets(e.site, "")
	e.follow("/")
	if n := len(e.watched()); n != 6 {
		t.Fatalf("%d pages watched, want 6", n)
	}
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 0 {
		t.Errorf("the widgets made entries: %q; /m1.html's diff %s", fresh, e.exported("/m1.html", "updated").Diff)
	}
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
	slices.Sort(learned)
	want := []string{"Moth ring: visit Kestrel's moths no. …", "Quote of the day: …", "between “Moth pages” and “Welcome, night owl”"}
	if !slices.Equal(learned, want) {
		t.Errorf("learned %q, want %q", learned, want)
	}
	serveWidgets(e.site, "An io moth came to the lamp in November.")
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 1 || fresh[0] != "updated /m2.html" {
		t.Fatalf("the edit made entries %q, want only /m2.html updated", fresh)
	}
	c := e.exported("/m2.html", "updated")
	changetest.Text(t, c, "Io moth", db.TextChanged, nil, []string{"An io moth came to the lamp in November."})
	for _, w := range append(append(quotes, banners...), "Kestrel") {
		if strings.Contains(c.Diff, w) {
			t.Errorf("the diff shows the widget %q: %s", w, c.Diff)
		}
	}
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 1 {
		t.Errorf("an unchanged harvest made entries: %q", fresh)
	}
}
