package publish_test

import (
	"encoding/json"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/publish"
)

// resyncRead is the Python resync client reading documents: each through
// its Sitemap parser (which refuses a root other than the sitemap
// namespace's urlset or sitemapindex, an rs:md or rs:ln after the first
// entry, an unknown change, a length that is no integer), and each
// <urlset> again through the class of its capability, which refuses a
// document of another. It prints what it read of each, as JSON.
const resyncRead = `
import json, sys
from resync.sitemap import Sitemap
from resync.source_description import SourceDescription
from resync.capability_list import CapabilityList
from resync.resource_list import ResourceList
from resync.change_list import ChangeList
classes = {'description': SourceDescription, 'capabilitylist': CapabilityList,
           'resourcelist': ResourceList, 'changelist': ChangeList}
out = {}
for path in sys.argv[1:]:
    s = Sitemap()
    with open(path, 'rb') as fh:
        rc = s.parse_xml(fh=fh)
    cap = rc.md.get('capability', '')
    if not s.parsed_index:
        with open(path, 'rb') as fh:
            classes[cap]().parse(fh=fh)
    out[path] = {'index': bool(s.parsed_index), 'capability': cap,
                 'entries': [[r.uri, r.change or '', r.datetime or ''] for r in rc]}
print(json.dumps(out))
`

// resyncPython is a Python that imports the resync client, or the test
// is skipped.
func resyncPython(t *testing.T) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import resync").Run() == nil {
			return py
		}
	}
	t.Skip("the Python resync client is not installed (pip install resync; or its source, github.com/resync/resync, with Debian's python3-dateutil and python3-defusedxml): not run")
	return ""
}

// TestResyncClientReadsEveryDocument: every document publish writes (the
// Source Description, two collections' capability, resource and change
// lists, a change list index once a list is full, and entries with
// change notes) is read by the Python resync client, the reference
// implementation, as tidings' own parser reads it: the same kind of
// document, the same capability, the same entries with their change and
// time.
func TestResyncClientReadsEveryDocument(t *testing.T) {
	py := resyncPython(t)
	site := t.TempDir()
	writeSite(t, site, feedSite())
	o := publish.Options{Dir: site, Collections: []string{"gallery", "style"}, MaxListEntries: 1}
	publishAt(t, o, "2026-03-01T10:00:00Z")
	writeSite(t, site, map[string]string{
		"gallery/a.html":   page("Gallery A", "Framed at last.", "A painting of Whiskers, framed."),
		"gallery/c.html":   page("Gallery C", "", "A photo of Ginger."),
		"style/notes.html": page("Style", "", "Plain, and short."),
	})
	o.Note = "Spring cleaning."
	publishAt(t, o, "2026-03-02T10:00:00Z")
	writeSite(t, site, map[string]string{"gallery/b.html": page("Gallery B", "", "A drawing of Tabby, signed.")})
	o.Note = ""
	publishAt(t, o, "2026-03-03T10:00:00Z")

	var paths []string
	filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".xml") || strings.HasSuffix(p, filepath.FromSlash(".well-known/resourcesync"))) {
			paths = append(paths, p)
		}
		return nil
	})
	cmd := exec.Command(py, append([]string{"-c", resyncRead}, paths...)...)
	outb, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("the resync client: %v\n%s", err, stderr)
	}
	var read map[string]struct {
		Index      bool       `json:"index"`
		Capability string     `json:"capability"`
		Entries    [][]string `json:"entries"`
	}
	if err := json.Unmarshal(outb, &read); err != nil {
		t.Fatalf("%v: %s", err, outb)
	}
	kinds := map[string]int{}
	for _, p := range paths {
		rel, _ := filepath.Rel(site, p)
		rel = filepath.ToSlash(rel)
		ours := readDoc(t, site, rel)
		theirs, ok := read[p]
		if !ok {
			t.Errorf("%s: not read by the resync client", rel)
			continue
		}
		kind := ours.Capability
		if ours.IsIndex() {
			kind += " index"
		}
		kinds[kind]++
		if theirs.Index != ours.IsIndex() || theirs.Capability != ours.Capability {
			t.Errorf("%s: the resync client reads a %s (index %v), tidings a %s", rel, theirs.Capability, theirs.Index, kind)
		}
		if len(theirs.Entries) != len(ours.Entries) {
			t.Errorf("%s: the resync client reads %d entries, tidings %d", rel, len(theirs.Entries), len(ours.Entries))
			continue
		}
		for i, e := range ours.Entries {
			got := theirs.Entries[i]
			if got[0] != e.Loc || got[1] != e.Change {
				t.Errorf("%s entry %d: the resync client reads %q %q, tidings %q %q", rel, i, got[0], got[1], e.Loc, e.Change)
			}
			if e.Datetime == nil {
				if got[2] != "" {
					t.Errorf("%s entry %d: the resync client reads a datetime %s, tidings none", rel, i, got[2])
				}
				continue
			}
			if at, err := time.Parse(time.RFC3339, got[2]); err != nil || !at.Equal(*e.Datetime) {
				t.Errorf("%s entry %d (%s): the resync client reads the datetime %q, tidings %s", rel, i, e.Loc, got[2], e.Datetime.Format(time.RFC3339))
			}
		}
	}
	t.Logf("the resync client read %d documents: %v", len(paths), kinds)
	// What the run must have written for the check to mean anything.
	for kind, min := range map[string]int{"description": 1, "capabilitylist": 2, "resourcelist": 2, "changelist": 3, "changelist index": 1} {
		if kinds[kind] < min {
			t.Errorf("%d documents of kind %q read, want at least %d (all: %v)", kinds[kind], kind, min, kinds)
		}
	}
	notes := 0
	for _, p := range paths {
		if rel, _ := filepath.Rel(site, p); strings.Contains(rel, "change") {
			for _, e := range readDoc(t, site, filepath.ToSlash(rel)).Entries {
				if e.Note != "" {
					notes++
				}
			}
		}
	}
	if notes == 0 {
		t.Error("no entry carries a change note: the client was not shown one")
	}
}
