package resourcesync_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// loggedSite serves a one-collection ResourceSync site (Source
// Description at the well-known place, a capability list, a change list
// of n entries, and nothing else) and logs the path of every request.
type loggedSite struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newLoggedSite(t *testing.T, n int) *loggedSite {
	s := &loggedSite{}
	docs := map[string]string{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.Path)
		s.mu.Unlock()
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	docs["/.well-known/resourcesync"] = harvesttest.PlainHead + `<rs:md capability="description"/>
<url><loc>` + s.URL + `/big/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + s.URL + `/big/"/></url>
</urlset>`
	docs["/big/cap.xml"] = harvesttest.PlainHead + `<rs:ln rel="up" href="` + s.URL + `/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>` + s.URL + `/big/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`
	var list strings.Builder
	list.WriteString(harvesttest.PlainHead + `<rs:ln rel="up" href="` + s.URL + `/big/cap.xml"/><rs:md capability="changelist"/>
`)
	kinds := []string{"created", "updated", "deleted"}
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	for i := range n {
		fmt.Fprintf(&list, `<url><loc>%s/big/page-%d.html</loc><rs:md change="%s" datetime="%s"/></url>
`, s.URL, i, kinds[i%len(kinds)], at.Add(time.Duration(i)*time.Second).Format(time.RFC3339))
	}
	list.WriteString("</urlset>\n")
	docs["/big/changes.xml"] = list.String()
	return s
}

// requests returns the paths requested so far, and forgets them.
func (s *loggedSite) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.log
	s.log = nil
	return out
}

// storedRows are a database's changes as export gives them, without
// their site's address, in a stable order.
func storedRows(t *testing.T, store *db.DB, base string) []string {
	t.Helper()
	var rows []string
	err := store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		rows = append(rows, fmt.Sprintf("%s %s %s history=%v source=%s", strings.TrimPrefix(c.URL, base), c.Kind,
			c.Datetime.UTC().Format(time.RFC3339), c.History, strings.TrimPrefix(c.Source, base)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rows)
	return rows
}

// TestAChangeListGivenIsReadOnce: following the address of a change list
// reads it once in the whole follow (its discovery looks at the page
// given; the harvest of its collection takes that read), makes no more
// requests than following the site does, and stores the same rows.
func TestAChangeListGivenIsReadOnce(t *testing.T) {
	harvesttest.OnEachEngine(t, testAChangeListGivenIsReadOnce)
}

func testAChangeListGivenIsReadOnce(t *testing.T) {
	const n = 300
	site := newLoggedSite(t, n)

	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	rep := harvesttest.Follow(t, h, site.URL+"/big/changes.xml")
	givenLog := site.requests()
	if got := rep.Changes(); got != n {
		t.Fatalf("follow of the change list's address: %d new changes, want %d", got, n)
	}
	if c := harvesttest.Collection(t, rep, "/big/"); c.Run.Documents != 1 {
		t.Errorf("the collection's run read %d documents, want 1 (its change list)", c.Run.Documents)
	}
	reads := 0
	for _, p := range givenLog {
		if p == "/big/changes.xml" {
			reads++
		}
	}
	if reads != 1 {
		t.Errorf("the change list was requested %d times in one follow of its address, want once; requests: %q", reads, givenLog)
	}
	seen := map[string]bool{}
	for _, p := range givenLog {
		if seen[p] {
			t.Errorf("%s was requested more than once; requests: %q", p, givenLog)
		}
		seen[p] = true
	}

	siteStore, siteH := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	if got := harvesttest.Follow(t, siteH, site.URL+"/big/").Changes(); got != n {
		t.Fatalf("follow of the site: %d new changes, want %d", got, n)
	}
	siteLog := site.requests()
	if len(givenLog) > len(siteLog) {
		t.Errorf("following the change list's address took %d requests (%q), following the site %d (%q)",
			len(givenLog), givenLog, len(siteLog), siteLog)
	}
	got, want := storedRows(t, store, site.URL), storedRows(t, siteStore, site.URL)
	if !slices.Equal(got, want) {
		t.Errorf("rows stored by the follow of the change list's address differ from the site's:\n%s\nwant\n%s",
			strings.Join(got[:min(5, len(got))], "\n"), strings.Join(want[:min(5, len(want))], "\n"))
	}

	// The next harvest reads the list again, and finds nothing new.
	if got := harvesttest.HarvestSite(t, store, h, site.URL+"/").Changes(); got != 0 {
		t.Errorf("the harvest after the follow: %d new changes, want 0", got)
	}
	if reads := slices.Index(site.requests(), "/big/changes.xml"); reads < 0 {
		t.Errorf("the harvest after the follow did not read the change list")
	}
}
