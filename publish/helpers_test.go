package publish_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tidings/publish"
	"tidings/rsync"
)

const base = "https://example.org/~ann/"

// writeSite lays out files (slash path → content) under dir.
func writeSite(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		name := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// at is a clock stopped at s.
func at(t *testing.T, s string) func() time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return func() time.Time { return tm }
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	return at(t, s)()
}

func publishAt(t *testing.T, o publish.Options, now string) *publish.Result {
	t.Helper()
	o.Now = at(t, now)
	if o.Datetime == "" {
		o.Datetime = publish.DatetimeNow
	}
	if o.BaseURL == "" {
		o.BaseURL = base
	}
	res, err := publish.Publish(context.Background(), o)
	if err != nil {
		t.Fatalf("publish at %s: %v", now, err)
	}
	checkDocuments(t, o.Dir)
	return res
}

// readDoc parses a generated document with tidings' own parser, as the
// harvester would read it from docURL.
func readDoc(t *testing.T, dir, rel string) *rsync.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := rsync.Parse(bytes.NewReader(data), base+rel)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if len(doc.Warnings) > 0 {
		t.Errorf("%s: warnings %q", rel, doc.Warnings)
	}
	return doc
}

// checkDocuments reads every generated document back: an XML declaration
// naming UTF-8, both namespaces bound once on the root, the root rs:md
// every ResourceSync document has, and what each capability requires.
func checkDocuments(t *testing.T, dir string) {
	t.Helper()
	var rels []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if err == nil && !d.IsDir() && (strings.HasSuffix(rel, ".xml") || rel == ".well-known/resourcesync") {
			rels = append(rels, rel)
		}
		return nil
	})
	for _, rel := range rels {
		data, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if !bytes.HasPrefix(data, []byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n")) {
			t.Errorf("%s does not begin with the XML declaration: %.60q", rel, data)
		}
		checkNamespaces(t, rel, data)
		doc := readDoc(t, dir, rel)
		checkCapability(t, rel, doc)
	}
}

func checkNamespaces(t *testing.T, rel string, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	depth := 0
	for {
		tok, err := dec.RawToken()
		if err != nil {
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			for _, a := range el.Attr {
				isNS := a.Name.Space == "xmlns" || a.Name.Local == "xmlns" && a.Name.Space == ""
				if isNS && depth > 0 {
					t.Errorf("%s: <%s> declares a namespace; they belong on the root", rel, el.Name.Local)
				}
			}
			if depth == 0 {
				var ns []string
				for _, a := range el.Attr {
					ns = append(ns, a.Value)
				}
				got := strings.Join(ns, " ")
				// A change list binds the notes' namespace too when it
				// carries a note.
				got = strings.TrimSuffix(got, " "+rsync.NSNote)
				if got != rsync.NSSitemap+" "+rsync.NSResourceSync {
					t.Errorf("%s: root binds %q", rel, got)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
}

func checkCapability(t *testing.T, rel string, doc *rsync.Document) {
	t.Helper()
	switch doc.Capability {
	case rsync.CapDescription:
		for _, e := range doc.Entries {
			if e.Capability != rsync.CapCapabilityList || e.Link("describes") == "" {
				t.Errorf("%s: entry %s lacks capabilitylist or describes", rel, e.Loc)
			}
		}
	case rsync.CapCapabilityList:
		n := 0
		for _, e := range doc.Entries {
			if e.Capability == rsync.CapChangeList {
				n++
			}
		}
		if doc.Link("up") == "" || doc.Link("describes") == "" || n != 1 {
			t.Errorf("%s: capability list with up %q, describes %q, %d change lists", rel, doc.Link("up"), doc.Link("describes"), n)
		}
	case rsync.CapResourceList:
		if doc.At == nil || doc.Link("up") == "" {
			t.Errorf("%s: resource list without at or up", rel)
		}
		for _, e := range doc.Entries {
			if e.Lastmod == nil || !strings.HasPrefix(e.Hash, "sha-256:") || len(e.Hash) != len("sha-256:")+64 {
				t.Errorf("%s: entry %s has lastmod %v hash %q", rel, e.Loc, e.Lastmod, e.Hash)
			}
		}
	case rsync.CapChangeList:
		if doc.From == nil || doc.Link("up") == "" {
			t.Errorf("%s: change list without from or up", rel)
		}
		for _, e := range doc.Entries {
			if doc.IsIndex() {
				if e.From == nil || e.Capability != rsync.CapChangeList {
					t.Errorf("%s: index entry %s lacks from or capability", rel, e.Loc)
				}
				continue
			}
			if e.Datetime == nil || e.Change == "" {
				t.Errorf("%s: entry %s has no change or datetime", rel, e.Loc)
				continue
			}
			if e.Datetime.Before(*doc.From) || doc.Until != nil && e.Datetime.After(*doc.Until) {
				t.Errorf("%s: entry %s dated %s outside the list's %s–%v", rel, e.Loc, e.Datetime, doc.From, doc.Until)
			}
		}
	default:
		t.Errorf("%s: capability %q", rel, doc.Capability)
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha-256:" + hex.EncodeToString(h[:])
}

// change is one change list entry, as compared in tests.
type change struct {
	url, kind, at string
}

func changesOf(doc *rsync.Document) []change {
	var out []change
	for _, e := range doc.Entries {
		out = append(out, change{e.Loc, e.Change, e.Datetime.UTC().Format(time.RFC3339)})
	}
	return out
}

// snapshot is every file of the folder with its bytes and time of
// modification.
type snapshot map[string]struct {
	data  string
	mtime time.Time
}

func snap(t *testing.T, dir string) snapshot {
	t.Helper()
	s := snapshot{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		s[filepath.ToSlash(rel)] = struct {
			data  string
			mtime time.Time
		}{string(data), fi.ModTime()}
		return nil
	})
	return s
}
