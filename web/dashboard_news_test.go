package web

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feedbuild"
)

// TestDashboardSaysWhatsNew: above the sites, the pages changed across
// everything a person follows, newest first, each titled, with its site
// and its change in one line; at most whatsNew of them, then a link to
// the person's feed. Sites the person does not follow are not in it.
func TestDashboardSaysWhatsNew(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	now := time.Now().UTC().Truncate(time.Second)
	showcaseSite(t, a.store, now)
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	// Another site, with more changes than the list holds, which only bob
	// follows at first.
	crowd := manyChanges(t, a.store, now.Add(-2*time.Hour), whatsNew+5)
	bob := a.signedIn(t, signIn(t, a.store, "bob"))

	body := mainOf(ann.get("/").Body.String())
	news, sites, ok := strings.Cut(body, `<section class="card"`)
	if !ok || !strings.Contains(news, `<h2 id="whats-new-title">What's new</h2>`) {
		t.Fatalf("no what's new above the sites:\n%s", body)
	}
	items := regexp.MustCompile(`(?s)<li class="news-item change-(\w+)">.*?</li>`).FindAllStringSubmatch(news, -1)
	var got []string
	for _, it := range items {
		got = append(got, it[1]+" "+text(it[0]))
	}
	// Each line: the page, what happened to it, on which site, when, and
	// the gist of what its text did (the diff's one-line summary).
	want := [][2]string{
		{"updated Whiskers updated on The Cat Shrine, 40 minutes ago ", "Whiskers purrs on the sunny windowsill"},
		{"created Adopt a cat created on The Cat Shrine, 3 hours ago ", "Adopt a cat"},
		{"updated Links updated on The Cat Shrine, 1 day ago ", "No change to the text."},
		{"deleted Guestbook deleted on The Cat Shrine, 2 days ago", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("what's new lists %d changes, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w[0]) || !strings.Contains(strings.TrimPrefix(got[i], w[0]), w[1]) {
			t.Errorf("change %d reads %q, want %q then %q", i+1, got[i], w[0], w[1])
		}
	}
	if strings.Contains(news, crowd.Title) || !strings.Contains(sites, "The Cat Shrine") {
		t.Errorf("ann's dashboard shows a site she does not follow, or not hers")
	}

	body = mainOf(bob.get("/").Body.String())
	news, _, _ = strings.Cut(body, `<section class="card"`)
	if n := strings.Count(news, `<li class="news-item`); n != whatsNew {
		t.Errorf("what's new lists %d changes, want the %d newest", n, whatsNew)
	}
	u, err := a.store.UserByName(t.Context(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(news, `The 20 newest changes. Every one, as it comes: <a href="`+testBase+feedbuild.UserFeedPath(u.FeedToken)+`">`) {
		t.Errorf("what's new does not lead to bob's feed:\n%s", news)
	}
}

// TestDashboardWithNothingNew: a person who follows sites where nothing
// changed yet is told what will appear.
func TestDashboardWithNothingNew(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	if _, err := a.store.CreateSite(t.Context(), db.Site{URL: "https://quiet.example/", InputURL: "https://quiet.example/"}); err != nil {
		t.Fatal(err)
	}
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	if body := ann.get("/").Body.String(); !strings.Contains(body, "Nothing new yet: pages that change on the sites you follow appear here") {
		t.Errorf("the dashboard of a quiet site:\n%s", mainOf(body))
	}
	eve := a.signedIn(t, signIn(t, a.store, "eve"))
	if err := a.store.Unfollow(t.Context(), mustUser(t, a.store, "eve").ID, mustSite(t, a.store, "https://quiet.example/").ID); err != nil {
		t.Fatal(err)
	}
	if body := eve.get("/").Body.String(); strings.Contains(body, "What's new") {
		t.Errorf("a dashboard with no site has a what's new:\n%s", mainOf(body))
	}
}

// manyChanges stores a site of n changed pages, the newest at at.
func manyChanges(t *testing.T, store *db.DB, at time.Time, n int) db.Site {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://crowd.example/", InputURL: "https://crowd.example/", Title: "The Crowd"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "sitemap", Key: "https://crowd.example/", SourceURL: "https://crowd.example/sitemap.xml"}})
	if err != nil {
		t.Fatal(err)
	}
	var changes []db.Change
	for i := range n {
		changes = append(changes, db.Change{URL: fmt.Sprintf("https://crowd.example/%d.html", i), Kind: "updated",
			Datetime: at.Add(-time.Duration(i) * time.Minute), Title: fmt.Sprintf("Crowd page %d", i)})
	}
	_, err = store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run:     db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: at, FinishedAt: at, Changes: n},
		Changes: changes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return site
}

var tags = regexp.MustCompile(`<[^>]*>`)

// text is the words of an HTML fragment, as a reader sees them.
func text(fragment string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(fragment, ""))), " ")
}

func mustUser(t *testing.T, store *db.DB, name string) db.User {
	t.Helper()
	u, err := store.UserByName(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustSite(t *testing.T, store *db.DB, u string) db.Site {
	t.Helper()
	s, err := store.SiteByURL(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPathOn(t *testing.T) {
	for _, tt := range []struct{ u, root, want string }{
		{"https://ann.example/shrine/a.html", "https://ann.example/", "/shrine/a.html"},
		{"https://ann.example/a?b=c", "https://ann.example/", "/a?b=c"},
		{"https://ann.example", "https://ann.example/", "/"},
		{"https://other.example/a", "https://ann.example/", "https://other.example/a"},
		{"http://ann.example/a", "https://ann.example/", "http://ann.example/a"},
	} {
		if got := pathOn(tt.u, tt.root); got != tt.want {
			t.Errorf("pathOn(%q, %q) = %q, want %q", tt.u, tt.root, got, tt.want)
		}
	}
}

// TestDashboardSaysTheNewestOnlyWhenThereAreMore: under the cap, the list
// is every change there is, and does not call itself the newest.
func TestDashboardSaysTheNewestOnlyWhenThereAreMore(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	showcaseSite(t, a.store, time.Now().UTC())
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	body := mainOf(ann.get("/").Body.String())
	if strings.Contains(body, "newest changes") || !strings.Contains(body, "Every one, as it comes:") {
		t.Errorf("four changes are called the newest:\n%s", body)
	}
}

// TestDashboardPutsQuietSitesFirst: a change from a site silent for four
// months comes above the changes of a site that changes daily, newer
// though they are, and says why; the daily site's say nothing of it.
func TestDashboardPutsQuietSitesFirst(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{})
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Second)
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	u, err := a.store.UserByName(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	site := func(name string, at ...time.Time) {
		s, err := a.store.CreateSite(ctx, db.Site{URL: "https://" + name + ".example/", InputURL: "https://" + name + ".example/", Title: name})
		if err != nil {
			t.Fatal(err)
		}
		cols, err := a.store.SyncCollections(ctx, s.ID, []db.CollectionSpec{{Protocol: "sitemap", Key: s.URL, SourceURL: s.URL + "sitemap.xml"}})
		if err != nil {
			t.Fatal(err)
		}
		for i, when := range at {
			ch := db.Change{URL: fmt.Sprintf("%sp%d.html", s.URL, i), Kind: "updated", Datetime: when, Title: fmt.Sprintf("%s page %d", name, i)}
			if _, err := a.store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
				Run: db.Run{SiteID: s.ID, CollectionID: cols[0].ID, StartedAt: when, FinishedAt: when, Changes: 1}, Changes: []db.Change{ch}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.store.Follow(ctx, u.ID, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	var daily []time.Time
	for d := 10; d >= 0; d-- {
		daily = append(daily, now.Add(-time.Duration(d)*24*time.Hour-time.Hour))
	}
	site("Daily", daily...)
	site("Quiet", now.Add(-125*24*time.Hour), now.Add(-5*time.Hour))

	news, _, _ := strings.Cut(mainOf(ann.get("/").Body.String()), `<section class="card"`)
	items := regexp.MustCompile(`(?s)<li class="news-item change-\w+">.*?</li>`).FindAllString(news, -1)
	if len(items) < 3 {
		t.Fatalf("what's new lists %d changes:\n%s", len(items), news)
	}
	if first := text(items[0]); !strings.HasPrefix(first, "Quiet page 1 updated on Quiet") || !strings.Contains(first, "First change in 4 months.") {
		t.Errorf("the first change reads %q, want the quiet site's with its reason", first)
	}
	for _, it := range items[1:] {
		// The quiet site's change of four months ago, last, is history.
		if w := text(it); strings.Contains(w, "First change") || !strings.Contains(w, "on Daily") && !strings.HasPrefix(w, "Quiet page 0") {
			t.Errorf("after the quiet site's change: %q, want the daily site's, without a reason", w)
		}
	}
}
