package feedbuild

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// TestDigestEntryListsAtMostDigestChanges: a harvest of thousands of
// changes makes a digest entry of the newest db.DigestChanges, then how
// many more, linking to the collection's page; its title counts them all.
func TestDigestEntryListsAtMostDigestChanges(t *testing.T) {
	s := newTestStore(t)
	const n = 5000
	var changes []db.Change
	for i := range n {
		changes = append(changes, db.Change{URL: fmt.Sprintf("https://rich.example/art/%04d.html", i), Kind: "updated",
			Datetime: t0.Add(time.Duration(i) * time.Second)})
	}
	s.save(t, s.art, t0, "") // the "now following" entry; the digest comes after
	s.save(t, s.art, t0.Add(2*time.Hour), "", changes...)
	b := s.builder(t, Options{})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	f := build(t, b, spec, feeds.Atom, Page{})
	if len(f.Entries) != 2 {
		t.Fatalf("%d entries, want the digest and the first harvest's", len(f.Entries))
	}
	e := f.Entries[0]
	if got := strings.Count(e.ContentHTML, "<li>"); got != db.DigestChanges {
		t.Errorf("the digest lists %d pages, want %d", got, db.DigestChanges)
	}
	if !strings.Contains(e.ContentHTML, fmt.Sprintf("https://rich.example/art/%04d.html", n-1)) ||
		strings.Contains(e.ContentHTML, fmt.Sprintf("https://rich.example/art/%04d.html\"", n-1-db.DigestChanges)) {
		t.Error("the digest does not list the newest pages")
	}
	more := fmt.Sprintf(`<p>… and 4,800 more changes: see <a href="%scollection/%s">the collection's page</a>.</p>`, testBase, s.art.PublicID)
	if !strings.HasSuffix(e.ContentHTML, more) {
		t.Errorf("the digest ends %q, want %q", e.ContentHTML[len(e.ContentHTML)-200:], more)
	}
	if want := "/art/4999.html, /art/4998.html and 4998 more pages updated on Art"; e.Title != want {
		t.Errorf("title %q, want %q", e.Title, want)
	}
	if len(e.ContentHTML) > 64<<10 {
		t.Errorf("the digest's content is %d bytes", len(e.ContentHTML))
	}
}
