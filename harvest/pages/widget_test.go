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

// blogPage is a page of a hand-made blog.
func blogPage(title string, body ...string) string {
	return `<!doctype html><html><head><title>` + title + `</title></head><body><nav><a href="/">Home</a></nav><h1>` + title + `</h1>` +
		strings.Join(body, "") + `<footer><p>Written by hand in the garden shed</p></footer></body></html>`
}

// serveBlog serves a home page listing the latest posts with their
// summaries, newest first, each post linking the one before and after.
func serveBlog(s *watchSite, posts [][3]string) {
	var home []string
	for i := len(posts) - 1; i >= 0; i-- {
		p := posts[i]
		home = append(home, fmt.Sprintf(`<h2><a href="/%s.html">%s</a></h2><p>%s</p>`, p[0], p[1], p[2]))
	}
	s.set("/", blogPage("Notes from the shed", home...))
	for i, p := range posts {
		body := []string{"<p>" + p[2] + "</p>", "<p>More of it, another day.</p>"}
		if i > 0 {
			body = append(body, fmt.Sprintf(`<p><a href="/%s.html">Previous: %s</a></p>`, posts[i-1][0], posts[i-1][1]))
		}
		if i+1 < len(posts) {
			body = append(body, fmt.Sprintf(`<p><a href="/%s.html">Next: %s</a></p>`, posts[i+1][0], posts[i+1][1]))
		}
		s.set("/"+p[0]+".html", blogPage(p[1], body...))
	}
}

// TestListingsOfWatchedPages: on a watched blog, a new post is one entry,
// created, though the home page (its title and summary) and the post
// before it (its "Next:" link) changed to name it; an edit of an older
// post's own text is still its entry.
func TestListingsOfWatchedPages(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	posts := [][3]string{
		{"seeds", "Saving tomato seeds", "Dry them on a paper towel."},
		{"frogs", "Frogs in the pond again", "Three of them, all green."},
		{"shed", "A new roof for the shed", "Felt, not tin, this time."},
	}
	serveBlog(e.site, posts)
	e.follow("/")
	posts = append(posts, [3]string{"rain", "The wettest November yet", "The barrel overflowed twice."})
	serveBlog(e.site, posts)
	e.harvest()
	if fresh := e.fresh(); !slices.Equal(fresh, []string{"created /rain.html"}) {
		t.Fatalf("entries %q, want the new post alone; the home page's diff %s", fresh, e.exported("/", "updated").Diff)
	}
	changetest.Text(t, e.exported("/rain.html", "created"), "The wettest November yet", db.TextChanged, nil,
		[]string{"The barrel overflowed twice.", "Previous: A new roof for the shed"})
	posts[0][2] = "Dry them on a paper towel, then in a jar."
	serveBlog(e.site, posts)
	e.harvest()
	if fresh := e.fresh(); !slices.Equal(fresh, []string{"created /rain.html", "updated /seeds.html"}) {
		t.Fatalf("entries %q, want the edited post's update", fresh)
	}
	changetest.Text(t, e.exported("/seeds.html", "updated"), "Saving tomato seeds", db.TextChanged,
		[]string{"Dry them on a paper towel."}, []string{"Dry them on a paper towel, then in a jar."})
}
