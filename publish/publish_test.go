package publish_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tidings/publish"
	"tidings/rsync"
)

func fixtureSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeSite(t, dir, map[string]string{
		"index.html":            "<title>Ann's site</title>home",
		"about.html":            "about me",
		"shrine/index.html":     "<title>Shrine</title>the shrine",
		"shrine/gallery.htm":    "pictures",
		"shrine/old.html":       "old page",
		"shrine/notes.txt":      "not a page unless included",
		".hidden/secret.html":   "never a page",
		"shrine/.draft/x.html":  "never a page either",
		"resourcesync/own.html": "the generated folder holds no pages",
	})
	return dir
}

func TestPublishFindsExactlyTheChanges(t *testing.T) {
	dir := fixtureSite(t)
	o := publish.Options{Dir: dir}
	res := publishAt(t, o, "2026-11-02T10:00:00Z")
	if c := res.Collections[0]; !c.First || c.Pages != 5 || c.Changes() != 0 {
		t.Fatalf("first run: %+v", c)
	}
	rl := readDoc(t, dir, "resourcesync/resourcelist.xml")
	var urls []string
	for _, e := range rl.Entries {
		urls = append(urls, e.Loc)
		if got := e.Lastmod.Format("2006-01-02T15:04:05Z"); got != "2026-11-02T10:00:00Z" {
			t.Errorf("%s lastmod %s", e.Loc, got)
		}
	}
	want := []string{base, base + "about.html", base + "shrine/", base + "shrine/gallery.htm", base + "shrine/old.html"}
	if !reflect.DeepEqual(urls, want) {
		t.Fatalf("resource list:\n got %q\nwant %q", urls, want)
	}
	if rl.Entries[1].Hash != sha("about me") || rl.Entries[1].Length != int64(len("about me")) {
		t.Errorf("about.html: hash %s length %d", rl.Entries[1].Hash, rl.Entries[1].Length)
	}
	cl := readDoc(t, dir, "resourcesync/changelist.xml")
	if len(cl.Entries) != 0 || cl.From.Format("2006-01-02T15:04:05Z") != "2026-11-02T10:00:00Z" || cl.Until != nil {
		t.Fatalf("first change list: %d entries, from %v until %v", len(cl.Entries), cl.From, cl.Until)
	}

	// Two pages edited, one added, one removed.
	writeSite(t, dir, map[string]string{
		"about.html":           "about me, again",
		"shrine/index.html":    "<title>Shrine</title>the shrine, grown",
		"shrine/new page.html": "a new page",
	})
	if err := os.Remove(filepath.Join(dir, "shrine/old.html")); err != nil {
		t.Fatal(err)
	}
	res = publishAt(t, o, "2026-11-03T08:30:00Z")
	if c := res.Collections[0]; c.First || c.Created != 1 || c.Updated != 2 || c.Deleted != 1 {
		t.Fatalf("second run: %+v", c)
	}
	cl = readDoc(t, dir, "resourcesync/changelist.xml")
	const t2 = "2026-11-03T08:30:00Z"
	wantChanges := []change{
		{base + "about.html", "updated", t2},
		{base + "shrine/", "updated", t2},
		{base + "shrine/new%20page.html", "created", t2},
		{base + "shrine/old.html", "deleted", t2},
	}
	if got := changesOf(cl); !reflect.DeepEqual(got, wantChanges) {
		t.Fatalf("change list:\n got %v\nwant %v", got, wantChanges)
	}
	if cl.Entries[0].Hash != sha("about me, again") || cl.Entries[3].Hash != "" {
		t.Errorf("hashes: updated %q, deleted %q", cl.Entries[0].Hash, cl.Entries[3].Hash)
	}
	rl = readDoc(t, dir, "resourcesync/resourcelist.xml")
	if rl.At.Format("2006-01-02T15:04:05Z") != t2 || len(rl.Entries) != 5 {
		t.Errorf("resource list at %v with %d entries", rl.At, len(rl.Entries))
	}
	for _, e := range rl.Entries {
		wantLastmod := "2026-11-02T10:00:00Z"
		if e.Loc == base+"about.html" || e.Loc == base+"shrine/" || e.Loc == base+"shrine/new%20page.html" {
			wantLastmod = t2
		}
		if got := e.Lastmod.Format("2006-01-02T15:04:05Z"); got != wantLastmod {
			t.Errorf("%s lastmod %s, want %s", e.Loc, got, wantLastmod)
		}
	}

	// Nothing changed: nothing is rewritten, not even the same bytes.
	before := snap(t, dir)
	res = publishAt(t, o, "2026-11-04T09:00:00Z")
	if len(res.Written) != 0 || res.Collections[0].Changes() != 0 {
		t.Fatalf("third run wrote %q, found %+v", res.Written, res.Collections[0])
	}
	if after := snap(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("the third run changed the folder")
	}
}

func TestSourceDescriptionAndCapabilityLists(t *testing.T) {
	dir := fixtureSite(t)
	writeSite(t, dir, map[string]string{"gallery/a.html": "a"})
	publishAt(t, publish.Options{Dir: dir, Collections: []string{"shrine/", "gallery"}}, "2026-11-02T10:00:00Z")
	sd := readDoc(t, dir, ".well-known/resourcesync")
	if sd.Capability != rsync.CapDescription || sd.Link("describedby") != base {
		t.Fatalf("source description: capability %q describedby %q", sd.Capability, sd.Link("describedby"))
	}
	type col struct{ loc, describes, describedby string }
	var got []col
	for _, e := range sd.Entries {
		got = append(got, col{e.Loc, e.Link("describes"), e.Link("describedby")})
	}
	want := []col{
		{base + "resourcesync/shrine/capabilitylist.xml", base + "shrine/", base + "shrine/"},
		// No index page: no describedby.
		{base + "resourcesync/gallery/capabilitylist.xml", base + "gallery/", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("collections:\n got %q\nwant %q", got, want)
	}
	cap := readDoc(t, dir, "resourcesync/shrine/capabilitylist.xml")
	if cap.Link("up") != base+".well-known/resourcesync" || cap.Link("describes") != base+"shrine/" || cap.Link("describedby") != base+"shrine/" {
		t.Errorf("capability list links: %+v", cap.Links)
	}
	var lists []string
	for _, e := range cap.Entries {
		lists = append(lists, e.Capability+" "+e.Loc)
	}
	wantLists := []string{
		"resourcelist " + base + "resourcesync/shrine/resourcelist.xml",
		"changelist " + base + "resourcesync/shrine/changelist.xml",
	}
	if !reflect.DeepEqual(lists, wantLists) {
		t.Errorf("capability list entries %q", lists)
	}
	rl := readDoc(t, dir, "resourcesync/gallery/resourcelist.xml")
	if len(rl.Entries) != 1 || rl.Entries[0].Loc != base+"gallery/a.html" || rl.Link("up") != base+"resourcesync/gallery/capabilitylist.xml" {
		t.Errorf("gallery resource list: %+v", rl)
	}
	cl := readDoc(t, dir, "resourcesync/shrine/changelist.xml")
	if cl.Link("up") != base+"resourcesync/shrine/capabilitylist.xml" {
		t.Errorf("change list up %q", cl.Link("up"))
	}
}

func TestWhichFilesArePages(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, map[string]string{
		"index.html":           "home",
		"docs/Index.HTML":      "an index by another name",
		"docs/ünï cödé#?.html": "escaped",
		"files/paper.pdf":      "pdf",
		"img/cat.png":          "png",
		"img/deep/dog.png":     "png, deeper than the glob",
		"style.css":            "css",
		".well-known/x.html":   "hidden",
		"out/x.html":           "the generated folder",
	})
	publishAt(t, publish.Options{Dir: dir, Folder: "out", Include: []string{"*.pdf", "img/*.png"}}, "2026-11-02T10:00:00Z")
	var got []string
	for _, e := range readDoc(t, dir, "out/resourcelist.xml").Entries {
		got = append(got, e.Loc)
	}
	want := []string{
		base,
		base + "docs/%C3%BCn%C3%AF%20c%C3%B6d%C3%A9%23%3F.html",
		base + "docs/Index.HTML",
		base + "files/paper.pdf",
		base + "img/cat.png",
	}
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pages:\n got %q\nwant %q", got, want)
	}
}

func TestBadOptionsAreRefusedAndLoseNothing(t *testing.T) {
	dir := fixtureSite(t)
	publishAt(t, publish.Options{Dir: dir}, "2026-11-02T10:00:00Z")
	before := snap(t, dir)
	cases := []struct {
		name string
		o    publish.Options
		want string
	}{
		{"no folder", publish.Options{Dir: filepath.Join(dir, "nope"), BaseURL: base}, "does not exist"},
		{"relative base", publish.Options{Dir: dir, BaseURL: "example.org/"}, "not an absolute http or https URL"},
		{"ftp base", publish.Options{Dir: dir, BaseURL: "ftp://example.org/"}, "not an absolute http or https URL"},
		{"query", publish.Options{Dir: dir, BaseURL: "https://example.org/?a"}, "query or fragment"},
		{"collection missing", publish.Options{Dir: dir, BaseURL: base, Collections: []string{"gallery/"}}, "the collection gallery/ is not a folder"},
		{"collection hidden", publish.Options{Dir: dir, BaseURL: base, Collections: []string{".hidden"}}, "hidden folder"},
		{"collection outside", publish.Options{Dir: dir, BaseURL: base, Collections: []string{"../x"}}, "must be a folder inside the site"},
		{"datetime", publish.Options{Dir: dir, BaseURL: base, Datetime: "mtime"}, "--datetime must be git or now"},
		{"glob", publish.Options{Dir: dir, BaseURL: base, Include: []string{"[a"}}, "is not a glob"},
		{"git outside a work tree", publish.Options{Dir: dir, BaseURL: base, Datetime: publish.DatetimeGit}, "not inside a git work tree"},
		{"history outside a work tree", publish.Options{Dir: dir, BaseURL: base, History: 24 * 3600e9}, "--history reads the commits"},
		{"another base URL", publish.Options{Dir: dir, BaseURL: "https://ann.example.net/", Datetime: publish.DatetimeNow}, "was --base-url or --folder different then?"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "git outside a work tree" || tc.name == "history outside a work tree" {
				t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
			}
			_, err := publish.Publish(t.Context(), tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if after := snap(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused run changed the folder")
	}
}

func TestUnreadableResourceListSaysHowToGoOn(t *testing.T) {
	dir := fixtureSite(t)
	publishAt(t, publish.Options{Dir: dir}, "2026-11-02T10:00:00Z")
	writeSite(t, dir, map[string]string{"resourcesync/resourcelist.xml": "<urlset><url>"})
	before := snap(t, dir)
	_, err := publish.Publish(t.Context(), publish.Options{Dir: dir, BaseURL: base, Datetime: publish.DatetimeNow})
	if err == nil || !strings.Contains(err.Error(), "resourcesync/resourcelist.xml cannot be read back") || !strings.Contains(err.Error(), "delete the folder resourcesync/") {
		t.Fatalf("error %v", err)
	}
	if after := snap(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatal("the refused run changed the folder")
	}
}

func TestRunAfterAnInterruptedOneAddsNoChangeTwice(t *testing.T) {
	dir := fixtureSite(t)
	o := publish.Options{Dir: dir}
	publishAt(t, o, "2026-11-02T10:00:00Z")
	oldList, err := os.ReadFile(filepath.Join(dir, "resourcesync/resourcelist.xml"))
	if err != nil {
		t.Fatal(err)
	}
	writeSite(t, dir, map[string]string{"about.html": "about me, again"})
	publishAt(t, o, "2026-11-03T10:00:00Z")
	// As if the run had stopped before it wrote the resource list.
	writeSite(t, dir, map[string]string{"resourcesync/resourcelist.xml": string(oldList)})
	publishAt(t, o, "2026-11-03T11:00:00Z")
	got := changesOf(readDoc(t, dir, "resourcesync/changelist.xml"))
	want := []change{{base + "about.html", "updated", "2026-11-03T10:00:00Z"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("change list %v, want %v", got, want)
	}
}

// Every page URL read back from the resource list must be the one the
// folder gives again, or each run would find pages deleted and created.
func TestURLsSurviveTheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a+b (1)!.html", "100%.html", "semi;colon=x.html", "tilde~'q'.html", "[brackets].html",
		"ünï cödé#?.html", "deep/er/index.html", "amp&lt;.html", "tab\there.html"}
	files := map[string]string{}
	for _, n := range names {
		files[n] = n
	}
	writeSite(t, dir, files)
	o := publish.Options{Dir: dir, BaseURL: "https://example.org/my%20site/"}
	res := publishAt(t, o, "2026-11-02T10:00:00Z")
	if res.Collections[0].Pages != len(names) {
		t.Fatalf("%d pages", res.Collections[0].Pages)
	}
	res = publishAt(t, o, "2026-11-03T10:00:00Z")
	if c := res.Collections[0]; c.Changes() != 0 || len(res.Written) != 0 {
		t.Fatalf("the second run found %+v and wrote %q", c, res.Written)
	}
}

// The site's folder may be a symbolic link (to a generator's output).
func TestFolderThroughASymbolicLink(t *testing.T) {
	real := fixtureSite(t)
	link := filepath.Join(t.TempDir(), "site")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	res := publishAt(t, publish.Options{Dir: link}, "2026-11-02T10:00:00Z")
	if res.Collections[0].Pages != 5 {
		t.Fatalf("%d pages through the link", res.Collections[0].Pages)
	}
}
