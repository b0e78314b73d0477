package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mmcdole/gofeed"
)

// plainSite serves pages and nothing else: no ResourceSync, no sitemap.
type plainSite struct {
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]string
}

func newPlainSite(t *testing.T) *plainSite {
	t.Helper()
	s := &plainSite{pages: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *plainSite) set(path, title string, nav []string, text ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><title>" + title + "</title></head><body><nav>")
	for _, n := range nav {
		sb.WriteString(`<a href="` + n + `">` + strings.Trim(n, "/") + `</a> `)
	}
	sb.WriteString("</nav><main><h1>" + title + "</h1>")
	for _, p := range text {
		sb.WriteString("<p>" + p + "</p>")
	}
	sb.WriteString("</main></body></html>")
	s.pages[path] = sb.String()
}

func (s *plainSite) remove(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pages, path)
}

// TestWatchedPagesThroughTheCLI: a site that publishes only its pages is
// followed as a watched page set, and served in a second version gives,
// through harvest --all and export changes, exactly the created, updated
// and deleted changes; feeds --json says how it is followed.
func TestWatchedPagesThroughTheCLI(t *testing.T) {
	t.Parallel()
	site := newPlainSite(t)
	nav := []string{"/", "/cats.html", "/dogs.html", "/old.html"}
	site.set("/", "Pet shrine", nav, "Welcome.")
	site.set("/cats.html", "Cats", nav, "Tabby sleeps.")
	site.set("/dogs.html", "Dogs", nav, "Rex barks.")
	site.set("/old.html", "Old", nav, "Opened in spring.")
	env := newEnv(t, "TIDINGS_WATCH_PAGES", "50")
	r := tidings(t, env, "follow", site.srv.URL+"/")
	mustSucceed(t, r)
	// The follow says what it watches now, not what it watched before.
	if !strings.Contains(r.stdout, "Pet shrine") || !strings.Contains(r.stdout, "watches 4 of its pages") {
		t.Errorf("follow printed:\n%s", r.stdout)
	}
	first := exportChanges(t, env)
	if len(first) != 4 || slices.Contains(alreadySeen(t, env), false) {
		t.Fatalf("first harvest stored %d changes, want the 4 pages as already seen: %+v", len(first), first)
	}

	nav2 := []string{"/", "/cats.html", "/dogs.html", "/birds.html"}
	site.set("/", "Pet shrine", nav2, "Welcome.")
	site.set("/cats.html", "Cats", nav2, "Tabby sleeps all day.")
	site.set("/dogs.html", "Dogs", nav2, "Rex barks.")
	site.set("/birds.html", "Birds", nav2, "Tweety sings.")
	site.remove("/old.html")
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	var got []string
	for _, c := range exportChanges(t, env)[len(first):] {
		got = append(got, c.Change+" "+strings.TrimPrefix(c.URL, site.srv.URL))
	}
	slices.Sort(got)
	if seen := alreadySeen(t, env)[len(first):]; slices.Contains(seen, true) {
		t.Errorf("the second harvest's changes are exported as already seen: %v", seen)
	}
	if want := []string{"created /birds.html", "deleted /old.html", "updated /cats.html"}; !slices.Equal(got, want) {
		t.Errorf("second harvest exported %q, want %q", got, want)
	}

	// A page no link leads to is watched once its address is followed.
	site.set("/hidden.html", "Hidden", nil, "A page nothing links to.")
	mustSucceed(t, tidings(t, env, "follow", site.srv.URL+"/hidden.html"))
	site.set("/hidden.html", "Hidden", nil, "A page nothing links to, changed.")
	mustSucceed(t, tidings(t, env, "harvest", "--all"))
	var hidden []string
	for _, c := range exportChanges(t, env) {
		if strings.HasSuffix(c.URL, "/hidden.html") {
			hidden = append(hidden, c.Change)
		}
	}
	if want := []string{"created", "updated"}; !slices.Equal(hidden, want) {
		t.Errorf("the page added by its address has changes %q, want %q", hidden, want)
	}

	f := tidings(t, env, "feeds", "--json")
	mustSucceed(t, f)
	var col struct {
		Key      string `json:"key"`
		Protocol string `json:"protocol"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(f.stdout)), &col); err != nil {
		t.Fatalf("feeds --json: %v\n%s", err, f.stdout)
	}
	if col.Protocol != "pages" || col.Key != site.srv.URL+"/" {
		t.Errorf("feeds --json: %+v", col)
	}

	checkWatchedFeed(t, env)
}

// checkWatchedFeed serves the feeds and reads the watched collection's
// back: its subtitle says how it is followed, and its entries are the
// second version's changes, the update's with the words changed.
func checkWatchedFeed(t *testing.T, env map[string]string) {
	t.Helper()
	base := strings.TrimSuffix(serveInProcess(t, env, "--no-scheduler"), "/")
	f, err := gofeed.NewParser().ParseString(fetchBody(t, base+public(t, env["TIDINGS_DB"], "/feeds/1.atom?entries=page")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Description, "watches 5 of its pages") || !strings.Contains(f.Description, "pages:") {
		t.Errorf("subtitle %q does not say how the collection is followed", f.Description)
	}
	items := map[string]*gofeed.Item{}
	for _, it := range f.Items {
		items[it.Title] = it
	}
	for _, title := range []string{"Updated: Cats", "Created: Birds", "Deleted: Old", "Updated: Hidden"} {
		if items[title] == nil {
			t.Errorf("no entry %q among %d", title, len(f.Items))
		}
	}
	// The first harvest's pages are already seen: its one entry says
	// tidings now follows them.
	var following int
	for _, it := range f.Items {
		if strings.HasPrefix(it.Title, "Now following ") {
			following++
		}
	}
	if len(f.Items) != 5 || following != 1 {
		t.Errorf("%d entries, %d of them \"Now following\", want 5 and 1", len(f.Items), following)
	}
	if cats := items["Updated: Cats"]; cats != nil && !strings.Contains(unstyled(cats.Content), "Tabby sleeps [added: <ins>all day</ins>].") {
		t.Errorf("the update's entry does not show the words added: %s", cats.Content)
	}
}

// TestWatchPagesSetting: --watch-pages, or TIDINGS_WATCH_PAGES, bounds the
// pages a collection watches; the flag wins.
func TestWatchPagesSetting(t *testing.T) {
	t.Parallel()
	site := newPlainSite(t)
	nav := []string{"/", "/a.html", "/b.html", "/c.html", "/d.html"}
	for _, p := range nav {
		site.set(p, "Page "+p, nav, "The page "+p+".")
	}
	for _, tc := range []struct {
		env   string
		flags []string
		want  int
	}{
		{"2", nil, 2},
		{"2", []string{"--watch-pages", "3"}, 3},
		{"", nil, 5},
	} {
		env := newEnv(t, "TIDINGS_WATCH_PAGES", tc.env)
		mustSucceed(t, tidings(t, env, append(append([]string{"follow"}, tc.flags...), site.srv.URL+"/")...))
		if got := exportChanges(t, env); len(got) != tc.want {
			t.Errorf("env %q, flags %q: %d pages watched, want %d", tc.env, tc.flags, len(got), tc.want)
		}
	}
	r := tidings(t, newEnv(t, "TIDINGS_WATCH_PAGES", "0"), "follow", site.srv.URL+"/")
	if r.code == 0 || !strings.Contains(r.stderr, "--watch-pages must be positive, not 0") {
		t.Errorf("--watch-pages 0: exit %d, %s", r.code, r.stderr)
	}
}

// alreadySeen is the already_seen of each exported change, oldest first.
func alreadySeen(t *testing.T, env map[string]string) []bool {
	t.Helper()
	r := tidings(t, env, "export", "changes")
	mustSucceed(t, r)
	var out []bool
	for _, l := range lines(t, r.stdout) {
		var c struct {
			AlreadySeen bool `json:"already_seen"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c.AlreadySeen)
	}
	return out
}
