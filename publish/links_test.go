package publish_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tidings/publish"
)

// TestPublishRefusesSymlinks: a link on the way to a document, to a
// folder or a file outside the site, stops the run before anything is
// written, with an error naming the link; nothing appears or changes
// outside the site.
func TestPublishRefusesSymlinks(t *testing.T) {
	for _, tt := range []struct {
		name        string
		link        string // slash path in the site that is made a link
		file        bool   // the link leads to a file, not a folder
		collections []string
	}{
		{name: "output folder", link: "resourcesync"},
		{name: "collection's output folder", link: "resourcesync/shrine", collections: []string{"shrine"}},
		{name: "source description's folder", link: ".well-known"},
		{name: "source description", link: ".well-known/resourcesync", file: true},
		{name: "change list read back", link: "resourcesync/changelist.xml", file: true},
		{name: "resource list read back", link: "resourcesync/resourcelist.xml", file: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixtureSite(t)
			outside := t.TempDir()
			target := outside
			if tt.file {
				target = filepath.Join(outside, "theirs.xml")
				if err := os.WriteFile(target, []byte("<urlset>not ours</urlset>"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(dir, filepath.FromSlash(tt.link))
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := tree(t, outside)
			siteBefore := tree(t, dir)
			o := publish.Options{Dir: dir, BaseURL: base, Datetime: publish.DatetimeNow, Collections: tt.collections}
			_, err := publish.Publish(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), link+" is a symbolic link") {
				t.Fatalf("publish with %s a link: %v, want an error naming it", tt.link, err)
			}
			if got := tree(t, outside); got != before {
				t.Errorf("outside the site, before:\n%s\nafter:\n%s", before, got)
			}
			if got := tree(t, dir); got != siteBefore {
				t.Errorf("the refused run changed the site, before:\n%s\nafter:\n%s", siteBefore, got)
			}
		})
	}
}

// TestPublishIntoALinkedSiteFolder: the site's folder itself may be a
// link; only what lies under it may not.
func TestPublishIntoALinkedSiteFolder(t *testing.T) {
	dir := fixtureSite(t)
	link := filepath.Join(t.TempDir(), "site")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	publishAt(t, publish.Options{Dir: link}, "2026-11-02T10:00:00Z")
	if _, err := os.Stat(filepath.Join(dir, "resourcesync", "resourcelist.xml")); err != nil {
		t.Error(err)
	}
}

// tree lists every file and link under dir with what it holds.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			b.WriteString(rel + " -> " + to + "\n")
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(rel + ": " + string(data) + "\n")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
