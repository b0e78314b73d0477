package feeds

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

var (
	day1 = time.Date(2024, 5, 1, 9, 30, 0, 0, time.UTC)
	day2 = time.Date(2024, 5, 2, 18, 5, 7, 0, time.UTC)
)

func sampleFeed() *Feed {
	items := []DigestItem{
		{URL: "https://shrine.example/about.html", Kind: "updated", Datetime: day2, Title: "About me"},
		{URL: "https://shrine.example/gallery/", Kind: "updated", Datetime: day1},
	}
	return &Feed{
		ID:           TagURI("tidings.example", day1, "collection/7"),
		Title:        "My Shrine",
		Subtitle:     "Changes to shrine.example",
		Author:       "",
		SelfURL:      "https://tidings.example/feeds/7.atom",
		AlternateURL: "https://shrine.example/",
		Entries: []Entry{
			{
				ID:          TagURI("tidings.example", day2, "collection/7/run/42"),
				Title:       DigestTitle("My Shrine", items),
				Updated:     day2,
				Published:   day2,
				Link:        "https://shrine.example/about.html",
				ContentHTML: DigestHTML(items),
				Summary:     "Two pages changed.",
			},
			{
				ID:          TagURI("tidings.example", day1, "collection/7/run/41"),
				Title:       "1 page created on My Shrine",
				Updated:     day1,
				Link:        "https://shrine.example/new.html",
				ContentHTML: `<p>new &amp; shiny</p>`,
			},
		},
	}
}

func hostileFeed() *Feed {
	items := []DigestItem{
		{URL: "javascript:alert(1)", Kind: "updated", Datetime: day2, Title: "<script>alert('t')</script>"},
		{URL: "https://evil.example/\"><script>x</script>", Kind: "<b>created</b>", Datetime: day1, Title: "bad\x00\x0b\xff\xfebytes"},
	}
	return &Feed{
		ID:           "tag:tidings.example,2024-05-01:collection/9\x00",
		Title:        "<script>alert(1)</script>\x0b Shrine \xc3\x28",
		Subtitle:     "sub\x01title",
		Author:       "</name><evil/>",
		SelfURL:      "https://tidings.example/feeds/9.atom",
		AlternateURL: "javascript:alert(document.cookie)",
		Entries: []Entry{{
			ID:          "tag:tidings.example,2024-05-02:collection/9/run/1",
			Title:       "<script>alert(2)</script>\x00",
			Updated:     day2,
			Link:        " JavaScript:alert(3)",
			ContentHTML: DigestHTML(items),
			Summary:     "]]><script>s</script>\x1b",
		}},
	}
}

func render(t *testing.T, f *Feed) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteAtom(&buf, f); err != nil {
		t.Fatalf("WriteAtom: %v", err)
	}
	return buf.Bytes()
}

func parseAtom(t *testing.T, out []byte) (*gofeed.Feed, *atom.Feed) {
	t.Helper()
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	parsed, err := p.ParseString(string(out))
	if err != nil {
		t.Fatalf("gofeed: %v\n%s", err, out)
	}
	if parsed.FeedType != "atom" || parsed.FeedVersion != "1.0" {
		t.Fatalf("feed type = %q %q, want atom 1.0", parsed.FeedType, parsed.FeedVersion)
	}
	orig, ok := parsed.OriginalFeed().(*atom.Feed)
	if !ok {
		t.Fatalf("OriginalFeed() = %T, want *atom.Feed", parsed.OriginalFeed())
	}
	return parsed, orig
}

// wellFormed decodes the whole document with encoding/xml.
func wellFormed(t *testing.T, out []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("encoding/xml: %v\n%s", err, out)
		}
	}
}

func TestWriteAtomGolden(t *testing.T) {
	tests := []struct {
		name string
		feed *Feed
	}{
		{"sample", sampleFeed()},
		{"empty", &Feed{
			ID:      TagURI("tidings.example", day1, "collection/8"),
			Title:   "Quiet Site",
			Updated: day1,
			SelfURL: "https://tidings.example/feeds/8.atom",
		}},
		{"hostile", hostileFeed()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(t, tt.feed)
			path := filepath.Join("testdata", tt.name+".golden.atom")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run with -update if intended)\ngot:\n%s", path, got)
			}
			if !bytes.HasPrefix(got, []byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n")) {
				t.Errorf("output does not start with the XML declaration")
			}
			wellFormed(t, got)
			parseAtom(t, got)
		})
	}
}

func TestWriteAtomReadBack(t *testing.T) {
	in := sampleFeed()
	parsed, orig := parseAtom(t, render(t, in))

	if parsed.Title != in.Title {
		t.Errorf("title = %q, want %q", parsed.Title, in.Title)
	}
	if parsed.Description != in.Subtitle {
		t.Errorf("subtitle = %q, want %q", parsed.Description, in.Subtitle)
	}
	if orig.ID != in.ID {
		t.Errorf("id = %q, want %q", orig.ID, in.ID)
	}
	if parsed.FeedLink != in.SelfURL {
		t.Errorf("self link = %q, want %q", parsed.FeedLink, in.SelfURL)
	}
	if parsed.Link != in.AlternateURL {
		t.Errorf("alternate link = %q, want %q", parsed.Link, in.AlternateURL)
	}
	wantTypes := map[string]string{"self": "application/atom+xml", "alternate": "text/html"}
	for _, l := range orig.Links {
		if wantTypes[l.Rel] != l.Type {
			t.Errorf("link rel=%q type = %q, want %q", l.Rel, l.Type, wantTypes[l.Rel])
		}
	}
	if len(parsed.Authors) != 1 || parsed.Authors[0].Name != DefaultAuthor {
		t.Errorf("authors = %v, want one named %q", parsed.Authors, DefaultAuthor)
	}
	if parsed.UpdatedParsed == nil || !parsed.UpdatedParsed.Equal(day2) {
		t.Errorf("feed updated = %v, want newest entry %v", parsed.UpdatedParsed, day2)
	}
	if len(parsed.Items) != len(in.Entries) {
		t.Fatalf("entries = %d, want %d", len(parsed.Items), len(in.Entries))
	}
	for i, want := range in.Entries {
		got := parsed.Items[i]
		if got.GUID != want.ID {
			t.Errorf("entry %d id = %q, want %q", i, got.GUID, want.ID)
		}
		if got.Title != want.Title {
			t.Errorf("entry %d title = %q, want %q", i, got.Title, want.Title)
		}
		if got.Link != want.Link {
			t.Errorf("entry %d link = %q, want %q", i, got.Link, want.Link)
		}
		if got.UpdatedParsed == nil || !got.UpdatedParsed.Equal(want.Updated) {
			t.Errorf("entry %d updated = %v, want %v", i, got.UpdatedParsed, want.Updated)
		}
		if got.Content != want.ContentHTML {
			t.Errorf("entry %d content = %q, want %q", i, got.Content, want.ContentHTML)
		}
		if got.Description != want.Summary {
			t.Errorf("entry %d summary = %q, want %q", i, got.Description, want.Summary)
		}
		e := orig.Entries[i]
		if e.Content == nil || e.Content.Type != "html" {
			t.Errorf("entry %d content = %+v, want type html", i, e.Content)
		}
		if (e.Published != "") != !want.Published.IsZero() {
			t.Errorf("entry %d published = %q, want set = %v", i, e.Published, !want.Published.IsZero())
		}
	}
}

func TestWriteAtomDeterministic(t *testing.T) {
	for _, f := range []*Feed{sampleFeed(), hostileFeed()} {
		a, b := render(t, f), render(t, f)
		if !bytes.Equal(a, b) {
			t.Errorf("two renders of %q differ:\n%s\n---\n%s", f.ID, a, b)
		}
		if bytes.Contains(a, []byte("urn:uuid:")) {
			t.Errorf("output of %q has a generated id:\n%s", f.ID, a)
		}
	}
}

func TestWriteAtomHostile(t *testing.T) {
	out := render(t, hostileFeed())
	wellFormed(t, out)
	parsed, orig := parseAtom(t, out)

	tests := []struct {
		name, got, want string
	}{
		{"feed id", orig.ID, "tag:tidings.example,2024-05-01:collection/9"},
		{"feed title", parsed.Title, "<script>alert(1)</script> Shrine \uFFFD("},
		{"subtitle", parsed.Description, "subtitle"},
		{"author", parsed.Authors[0].Name, "</name><evil/>"},
		{"alternate link", parsed.Link, ""},
		{"entry title", parsed.Items[0].Title, "<script>alert(2)</script>"},
		{"entry link", parsed.Items[0].Link, ""},
		{"entry summary", parsed.Items[0].Description, "]]><script>s</script>"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if bytes.Contains(out, []byte("<script")) {
		t.Errorf("raw output holds an unescaped <script>:\n%s", out)
	}
	content := parsed.Items[0].Content
	for _, bad := range []string{"<script", `href="javascript`, "<b>", "\x00", "\x0b"} {
		if strings.Contains(strings.ToLower(content), bad) {
			t.Errorf("content holds %q:\n%s", bad, content)
		}
	}
	if !strings.Contains(content, "&lt;script&gt;") {
		t.Errorf("content lost the escaped title:\n%s", content)
	}
}

func TestWriteAtomTimes(t *testing.T) {
	paris := time.FixedZone("CEST", 2*3600)
	local := time.Date(2024, 6, 1, 12, 0, 0, 999, paris)
	f := &Feed{
		ID:      "tag:tidings.example,2024-06-01:c",
		Updated: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
		Entries: []Entry{
			{ID: "tag:tidings.example,2024-06-01:a", Updated: local, Published: local},
			{ID: "tag:tidings.example,2024-06-01:b", Published: local},
			// A harvest's end, as precise as tidings knows it.
			{ID: "tag:tidings.example,2024-06-01:d", Updated: time.Date(2024, 6, 1, 9, 0, 0, 120_450_999, time.UTC)},
		},
	}
	out := string(render(t, f))
	for _, want := range []string{
		"<updated>2030-01-01T00:00:00Z</updated>",
		"<updated>2024-06-01T10:00:00Z</updated>",
		"<published>2024-06-01T10:00:00Z</published>",
		"<updated>2024-06-01T09:00:00.12045Z</updated>",
		"<title>tag:tidings.example,2024-06-01:c</title>",
		"<title>tag:tidings.example,2024-06-01:b</title>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "+02:00") {
		t.Errorf("output holds a non-UTC time:\n%s", out)
	}
}

func TestWriteAtomErrors(t *testing.T) {
	ok := func() *Feed { return &Feed{ID: "tag:x,2024-01-01:c", Updated: day1} }
	tests := []struct {
		name string
		feed *Feed
	}{
		{"nil feed", nil},
		{"no feed id", &Feed{Updated: day1}},
		{"blank feed id", &Feed{ID: " \x00 ", Updated: day1}},
		{"no updated", &Feed{ID: "tag:x,2024-01-01:c"}},
		{"entry without id", func() *Feed {
			f := ok()
			f.Entries = []Entry{{Updated: day1}}
			return f
		}()},
		{"entry without time", func() *Feed {
			f := ok()
			f.Entries = []Entry{{ID: "tag:x,2024-01-01:e"}}
			return f
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteAtom(&buf, tt.feed); err == nil {
				t.Fatalf("WriteAtom succeeded:\n%s", buf.Bytes())
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", buf.Len())
			}
		})
	}
}

type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteAtomWriterError(t *testing.T) {
	if err := WriteAtom(failingWriter{}, sampleFeed()); !errors.Is(err, errWrite) {
		t.Errorf("err = %v, want %v", err, errWrite)
	}
}
