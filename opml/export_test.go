package opml

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"tidings/db"
)

// TestWriteUser exports what a user follows from a real database and
// reads it back: one subscription per collection feed, at its address
// under the base URL, linking to the page the collection stands for.
func TestWriteUser(t *testing.T) {
	ctx := t.Context()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://shrine.example/", InputURL: "https://shrine.example/"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{
		{Protocol: "resourcesync", Key: "https://shrine.example/art/", SourceURL: "https://shrine.example/art/capabilitylist.xml", Title: "Art"},
		{Protocol: "scp", Key: "https://shrine.example/blog/", SourceURL: "https://shrine.example/blog.scp", Title: "Blog"},
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := store.CreateUser(ctx, "ann", "x", "token", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Follow(ctx, u.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteUser(ctx, store, "https://tidings.example/sub/", u, Digests, &buf); err != nil {
		t.Fatal(err)
	}
	got, skipped, err := Parse(&buf, 1<<20)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("Parse of the export: %v %q", err, skipped)
	}
	want := []Outline{
		// Public ids, not the sequential ones a reader could count.
		{Title: "Art", XMLURL: "https://tidings.example/sub/feeds/" + cols[0].PublicID + ".atom", HTMLURL: "https://shrine.example/art/"},
		{Title: "Blog", XMLURL: "https://tidings.example/sub/feeds/" + cols[1].PublicID + ".atom", HTMLURL: "https://shrine.example/"},
	}
	if len(cols[0].PublicID) != 32 || len(cols[1].PublicID) != 32 || !reflect.DeepEqual(got, want) {
		t.Errorf("export of collections %d, %d:\n got %+v\nwant %+v", cols[0].ID, cols[1].ID, got, want)
	}
	if err := WriteUser(ctx, store, "http://[::1", u, Digests, &buf); err == nil {
		t.Error("WriteUser accepted a malformed base URL")
	}

	// One entry per changed page, when the person asks for it.
	buf.Reset()
	if err := WriteUser(ctx, store, "https://tidings.example/sub/", u, PerPage, &buf); err != nil {
		t.Fatal(err)
	}
	got, _, err = Parse(&buf, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].XMLURL += "?entries=page"
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("export with one entry per page:\n got %+v\nwant %+v", got, want)
	}
	for in, want := range map[string]Entries{"": Digests, "digest": Digests, "page": PerPage} {
		if got, ok := ParseEntries(in); !ok || got != want {
			t.Errorf("ParseEntries(%q) = %v, %v", in, got, ok)
		}
	}
	if _, ok := ParseEntries("pages"); ok {
		t.Error(`ParseEntries("pages") accepted it`)
	}
}
