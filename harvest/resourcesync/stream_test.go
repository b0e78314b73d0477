package resourcesync_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// TestAChangeListReadFirstIsStreamed: a gzip'd change list read for the
// first time is parsed as it arrives; the digest kept of it is that of
// the list itself, so that the next harvest, which reads it whole, knows
// it served again unchanged (no validators) and finds nothing new.
func TestAChangeListReadFirstIsStreamed(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	list := harvesttest.PlainHead + `<rs:md capability="changelist"/>
<url><loc>` + site.URL + `/a.html</loc><rs:md change="created" datetime="2026-11-20T10:00:00Z"/></url>
<url><loc>` + site.URL + `/b.html</loc><rs:md change="updated" datetime="2026-11-21T10:00:00Z"/></url>
<url><loc>` + site.URL + `/c.html</loc><rs:md change="deleted" datetime="2026-11-22T10:00:00Z"/></url>
</urlset>
`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(list))
	zw.Close()
	site.Set("/changes.xml", gz.String())
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))
	if got := harvesttest.Follow(t, h, site.URL+"/").Changes(); got != 3 {
		t.Fatalf("follow: %d new changes, want 3", got)
	}
	if got, want := harvesttest.StoredURLs(t, store, site.URL), []string{"/a.html", "/b.html", "/c.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %q, want %q", got, want)
	}
	states, err := store.FetchStates(context.Background(), harvesttest.SiteID(t, store, site.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(list))
	if got := states[site.URL+"/changes.xml"].Digest; got != hex.EncodeToString(sum[:]) {
		t.Errorf("digest kept of the change list %q, want that of the list, %x", got, sum)
	}
	if got := harvesttest.HarvestSite(t, store, h, site.URL+"/").Changes(); got != 0 {
		t.Errorf("the list served again: %d new changes", got)
	}
}

// TestAChangeListOverMaxBodyReadFirst: a change list past --max-body,
// read as it arrives, is refused with a sentence naming the limit, and
// nothing of it is stored; the next harvest reads it again.
func TestAChangeListOverMaxBodyReadFirst(t *testing.T) {
	site := harvesttest.NewChangeListSite(t)
	var b strings.Builder
	b.WriteString(harvesttest.PlainHead + `<rs:md capability="changelist"/>` + "\n")
	for i := range 200 {
		fmt.Fprintf(&b, `<url><loc>BASE/p%03d.html</loc><rs:md change="updated" datetime="2026-11-20T10:00:00Z"/></url>`+"\n", i)
	}
	b.WriteString("</urlset>\n")
	site.Set("/changes.xml", b.String())
	store, err := db.Open(context.Background(), harvesttest.Target(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true, MaxBody: 8 << 10})
	h := harvest.New(client, store, harvesttest.Quiet(harvest.Options{}))
	rep := harvesttest.Follow(t, h, site.URL+"/")
	if len(rep.Collections) != 1 {
		t.Fatalf("%d collections", len(rep.Collections))
	}
	want := "the change list " + site.URL + "/changes.xml is larger than the limit of 8192 bytes (--max-body)"
	if got := rep.Collections[0].Run.Error; !strings.Contains(got, want) {
		t.Errorf("the run's error %q, want it to say %q", got, want)
	}
	if got := harvesttest.StoredURLs(t, store, site.URL); len(got) != 0 {
		t.Errorf("stored %q of a list past the limit", got)
	}
	states, err := store.FetchStates(context.Background(), harvesttest.SiteID(t, store, site.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := states[site.URL+"/changes.xml"]; ok {
		t.Errorf("the list past the limit was kept as read: %+v", s)
	}
}
