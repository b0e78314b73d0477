package iiif

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParse checks that no input panics the parsers, and that what they
// accept keeps its promises: a collection names an http(s) last page;
// every activity has a type and, but for a Refresh, an http(s) object of
// at most MaxURLBytes; times are UTC; labels are short valid text.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type": "OrderedCollectionPage", "orderedItems": [{"type": "Move", "object": "https://e.org/a", "target": {"@id": "https://e.org/b", "label": {"": [""]}}}]}`))
	f.Add([]byte(`{"type": "OrderedCollection", "last": {"id": "https://e.org/p", "type": ["x", 1]}, "label": [{"@value": 1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(bytes.NewReader(data))
		if err != nil {
			if doc != nil {
				t.Fatal("a document and an error")
			}
		} else {
			checkDocument(t, doc)
		}
		if m, err := ParseManifest(bytes.NewReader(data)); err == nil {
			checkLabel(t, m.Label)
			if m.Homepage != "" && !goodURL(m.Homepage) {
				t.Errorf("homepage %q accepted", m.Homepage)
			}
		}
		for _, u := range StreamLinks(bytes.NewReader(data), "https://example.org/") {
			if !goodURL(u) {
				t.Errorf("stream link %q accepted", u)
			}
		}
	})
}

func checkDocument(t *testing.T, doc *Document) {
	if (doc.Collection == nil) == (doc.Page == nil) {
		t.Fatalf("document %+v is not one of a collection and a page", doc)
	}
	if c := doc.Collection; c != nil {
		if !goodURL(c.Last) {
			t.Errorf("last page %q accepted", c.Last)
		}
		checkLabel(t, c.Label)
		return
	}
	p := doc.Page
	if len(p.Items) > MaxActivities {
		t.Errorf("%d activities kept", len(p.Items))
	}
	for _, a := range p.Items {
		if a.Type == "" {
			t.Errorf("activity without a type kept: %+v", a)
		}
		if a.Type != Refresh && !goodURL(a.Object.ID) {
			t.Errorf("object %q accepted", a.Object.ID)
		}
		for _, r := range []Ref{a.Target, a.Origin} {
			if r.ID != "" && !goodURL(r.ID) {
				t.Errorf("reference %q accepted", r.ID)
			}
		}
		for _, at := range []time.Time{a.EndTime, a.StartTime} {
			if !at.IsZero() && at.Location() != time.UTC {
				t.Errorf("time not UTC: %v", at)
			}
		}
		checkLabel(t, a.Object.Label)
	}
}

func checkLabel(t *testing.T, l Label) {
	if len(l) > MaxLanguages {
		t.Errorf("%d languages kept", len(l))
	}
	for _, lt := range l {
		if len(lt.Text) > MaxLabelBytes || !utf8.ValidString(lt.Text) || lt.Text == "" {
			t.Errorf("label text %q kept", lt.Text)
		}
	}
}

func goodURL(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && len(u) <= MaxURLBytes && (pu.Scheme == "http" || pu.Scheme == "https") && pu.Host != ""
}
