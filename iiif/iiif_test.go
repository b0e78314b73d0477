package iiif

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseCollection: the entry point's last page is what reading starts
// from.
func TestParseCollection(t *testing.T) {
	doc, err := Parse(bytes.NewReader(readFixture(t, "collection.json")))
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Collection
	if c == nil || doc.Page != nil {
		t.Fatalf("got %+v, want a collection", doc)
	}
	if c.ID != "https://example.org/activity/all-changes" || c.Last != "https://example.org/activity/page-214" ||
		c.First != "https://example.org/activity/page-0" || c.TotalItems != 21456 {
		t.Errorf("collection %+v", c)
	}
}

// TestParsePage: every activity type, with its object, target, origin
// and time; what cannot be used is skipped with a warning saying why.
func TestParsePage(t *testing.T) {
	doc, err := Parse(bytes.NewReader(readFixture(t, "page.json")))
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Page
	if p == nil {
		t.Fatalf("got %+v, want a page", doc)
	}
	if p.Prev != "https://example.org/activity/page-0" || p.Next != "https://example.org/activity/page-2" || p.PartOf != "https://example.org/activity/all-changes" {
		t.Errorf("page links %+v", p)
	}
	var types []string
	for _, a := range p.Items {
		types = append(types, a.Type)
	}
	if want := []string{Refresh, Create, Update, Delete, Move, Add, Remove, Update}; !slices.Equal(types, want) {
		t.Errorf("types %q, want %q", types, want)
	}
	if got := p.Items[0].Time(); !got.Equal(time.Date(2020, 6, 21, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("a Refresh is dated by its startTime: %v", got)
	}
	if got := p.Items[2].EndTime; !got.Equal(time.Date(2020, 6, 22, 8, 0, 0, 500e6, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("endTime with an offset read as %v", got)
	}
	if m := p.Items[4]; m.Target.ID != "https://example.org/iiif/4b/manifest" || m.Object.ID != "https://example.org/iiif/4/manifest" {
		t.Errorf("move %+v", m)
	}
	if a := p.Items[5]; a.Target.ID != "https://example.org/activity/all-changes" {
		t.Errorf("add %+v", a)
	}
	if r := p.Items[6]; r.Origin.ID != "https://example.org/activity/all-changes" {
		t.Errorf("remove %+v", r)
	}
	if got := p.Items[1].Object.Label.Pick(""); got != "De Nachtwacht" {
		t.Errorf("label without a language = %q, want the first given", got)
	}
	if p.Items[7].EndTime.IsZero() == false {
		t.Errorf("a bad endTime was kept: %v", p.Items[7].EndTime)
	}
	warn := strings.Join(p.Warnings, "\n")
	for _, want := range []string{`activity 8: its object "javascript:alert(1)" is not an http(s) URL`, `activity 9: its endTime "yesterday" is not a datetime`} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings %q lack %q", warn, want)
		}
	}
}

// TestLabelPick: the reader's language, else "none", else the first.
func TestLabelPick(t *testing.T) {
	l := parseLabel([]byte(`{"nl": ["De Nachtwacht"], "en-GB": ["The Night Watch"], "none": ["SK-C-5"]}`))
	for _, tc := range []struct{ lang, want string }{
		{"nl", "De Nachtwacht"}, {"en", "The Night Watch"}, {"EN-gb", "The Night Watch"}, {"fr", "SK-C-5"}, {"", "SK-C-5"},
	} {
		if got := l.Pick(tc.lang); got != tc.want {
			t.Errorf("Pick(%q) = %q, want %q", tc.lang, got, tc.want)
		}
	}
	if got := parseLabel([]byte(`{"de": ["Erste", "Zweite"], "fr": ["Premier"]}`)).Pick("es"); got != "Erste; Zweite" {
		t.Errorf("first language = %q", got)
	}
	if got := parseLabel([]byte(`"Plain\n  label"`)).Pick("en"); got != "Plain label" {
		t.Errorf("a Presentation 2 label = %q", got)
	}
	long := parseLabel([]byte(`{"en": ["` + strings.Repeat("é", 1000) + `"]}`)).Pick("en")
	if len(long) > MaxLabelBytes || !strings.HasSuffix(long, "…") {
		t.Errorf("a long label kept %d bytes", len(long))
	}
}

// TestParseManifest: version 3's label and HTML homepage; version 2's
// label and related page.
func TestParseManifest(t *testing.T) {
	m, err := ParseManifest(bytes.NewReader(readFixture(t, "manifest3.json")))
	if err != nil {
		t.Fatal(err)
	}
	if m.Label.Pick("nl") != "De Nachtwacht" || m.Label.Pick("") != "The Night Watch" || m.Homepage != "https://example.org/collection/1" {
		t.Errorf("manifest 3: %+v", m)
	}
	m, err = ParseManifest(bytes.NewReader(readFixture(t, "manifest2.json")))
	if err != nil {
		t.Fatal(err)
	}
	if m.Label.Pick("en") != "Self-portrait" || m.Label.Pick("de") != "Zelfportret" || m.Homepage != "https://example.org/collection/2" {
		t.Errorf("manifest 2: %+v", m)
	}
	if _, err := ParseManifest(strings.NewReader(`{"type": "Image"}`)); !errors.Is(err, ErrNotManifest) {
		t.Errorf("an image read as a manifest: %v", err)
	}
}

// TestParseErrors: each broken stream fails with the sentinel a caller
// explains it by.
func TestParseErrors(t *testing.T) {
	many := `{"type": "OrderedCollectionPage", "orderedItems": [` + strings.Repeat(`{},`, MaxActivities) + `{}]}`
	for _, tc := range []struct {
		name, doc string
		want      error
	}{
		{"html", "<!doctype html><title>Not found</title>", ErrNotJSON},
		{"empty", "  ", ErrNotJSON},
		{"truncated", `{"type": "OrderedCollection", "last": {"id": "https://e.org/p`, ErrNotJSON},
		{"list", `[1, 2]`, ErrNotStream},
		{"manifest", `{"type": "Manifest", "id": "https://e.org/m"}`, ErrNotStream},
		{"no type", `{"id": "https://e.org/c"}`, ErrNotStream},
		{"no last", `{"type": "OrderedCollection", "first": {"id": "https://e.org/p0"}}`, ErrNoLast},
		{"last not http", `{"type": "OrderedCollection", "last": "ftp://e.org/p9"}`, ErrNoLast},
		{"items not a list", `{"type": "OrderedCollectionPage", "orderedItems": {"a": 1}}`, ErrNotStream},
		{"too many activities", many, ErrTooLarge},
		{"too many bytes", `{"type": "OrderedCollection", "x": "` + strings.Repeat("a", MaxDocumentBytes) + `"}`, ErrTooLarge},
	} {
		doc, err := Parse(strings.NewReader(tc.doc))
		if !errors.Is(err, tc.want) || doc != nil {
			t.Errorf("%s: Parse = %+v, %v; want %v", tc.name, doc, err, tc.want)
		}
	}
}

// TestParseShapes: the shapes JSON-LD allows: a string for a reference, a
// list of types, prefixed types, @id.
func TestParseShapes(t *testing.T) {
	doc, err := Parse(strings.NewReader(`{"@type": ["as:OrderedCollection"], "@id": "https://e.org/c", "last": "https://e.org/p9"}`))
	if err != nil || doc.Collection.Last != "https://e.org/p9" || doc.Collection.ID != "https://e.org/c" {
		t.Fatalf("Parse = %+v, %v", doc, err)
	}
	doc, err = Parse(strings.NewReader(`{"type": "OrderedCollectionPage", "prev": "https://e.org/p8",
		"orderedItems": [{"type": ["Update"], "object": "https://e.org/m1", "endTime": "2024-01-02T03:04:05Z"}]}`))
	if err != nil || len(doc.Page.Items) != 1 || doc.Page.Items[0].Object.ID != "https://e.org/m1" || doc.Page.Prev != "https://e.org/p8" {
		t.Fatalf("Parse = %+v, %v", doc.Page, err)
	}
}

// TestStreamLinks: only alternates of a stream's types, resolved against
// <base>, from the head.
func TestStreamLinks(t *testing.T) {
	got := StreamLinks(bytes.NewReader(readFixture(t, "page.html")), "https://example.org/collection/")
	want := []string{"https://example.org/base/activity/all-changes", "https://example.org/as"}
	if !slices.Equal(got, want) {
		t.Errorf("StreamLinks = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		t    string
		want bool
	}{
		{`application/ld+json;profile="http://iiif.io/api/discovery/1/context.json"`, true},
		{`application/ld+json; profile="https://iiif.io/api/discovery/1/context.json"`, true},
		{`application/ld+json;profile="https://www.w3.org/ns/activitystreams"`, true},
		{`application/activity+json`, true},
		{`application/ld+json`, false},
		{`application/json`, false},
		{`application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"`, false},
	} {
		if got := StreamType(tc.t); got != tc.want {
			t.Errorf("StreamType(%q) = %v", tc.t, got)
		}
	}
}
