package rsync

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"tidings/hints"
)

// TestParseLongURLs checks that an entry whose URL is longer than
// hints.MaxURLBytes is skipped, and counted in one warning, however long it
// is, and that an rs:ln href that long is dropped.
func TestParseLongURLs(t *testing.T) {
	const base = "https://example.org/"
	exact := base + strings.Repeat("a", hints.MaxURLBytes-len(base))
	over := exact + "b"
	huge := base + strings.Repeat("c", 1<<20)
	// Relative, it is short; resolved against the document's URL, too long.
	relative := strings.Repeat("d", hints.MaxURLBytes-len(base)+1)
	src := `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <rs:ln rel="up" href="` + over + `"/>
  <url><loc>
    ` + exact + `
  </loc><rs:ln rel="alternate" href="` + huge + `"/></url>
  <url><loc>` + over + `</loc></url>
  <url><loc>` + huge + `</loc></url>
  <url><loc>` + relative + `</loc></url>
  <url><loc>https://example.org/short</loc></url>
</urlset>`
	doc, err := Parse(strings.NewReader(src), "https://example.org/cl.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := &Document{
		URL: "https://example.org/cl.xml", Root: RootURLSet,
		Entries: []Entry{{Loc: exact}, {Loc: "https://example.org/short"}},
		Warnings: []string{
			`root: rs:ln rel="up" href is longer than 2048 bytes, skipped`,
			fmt.Sprintf(`entry 1 <%s>: rs:ln rel="alternate" href is longer than 2048 bytes, skipped`, exact),
			"skipped 3 entries whose URL is longer than 2048 bytes",
		},
	}
	sameDoc(t, doc, want)
}

// TestTextKeepsAtMostMaxText: the text of an element is gathered up to
// maxText bytes only, so a <loc> of megabytes is refused without being
// copied into a string, then resolved, on the way.
func TestTextKeepsAtMostMaxText(t *testing.T) {
	for _, n := range []int{maxText, maxText + 1, 16 << 20} {
		huge := strings.Repeat("x", n)
		src := `<loc>` + huge[:n/2] + `<!-- split -->` + huge[n/2:] + `</loc>`
		r := &xmlReader{dec: hints.NewXMLTokens(strings.NewReader(src), 0, nil)}
		if tok, err := r.next(); err != nil || tok.kind != tokStart {
			t.Fatalf("start: %v", err)
		}
		got, long, err := r.text()
		if err != nil {
			t.Fatal(err)
		}
		if wantLong := n > maxText; long != wantLong || (long && got != "") || (!long && len(got) != n) {
			t.Errorf("%d bytes of text: kept %d, long %v", n, len(got), long)
		}
	}
	doc, err := Parse(strings.NewReader(`<urlset xmlns="`+sm09+`"><url><loc>https://example.org/`+
		strings.Repeat("x", 16<<20)+`</loc></url></urlset>`), "https://example.org/cl.xml")
	if err != nil || len(doc.Entries) != 0 {
		t.Fatalf("Parse: %v, %d entries", err, len(doc.Entries))
	}
}

// TestParseWarningsCapped checks that a document with a problem in every
// entry keeps a bounded number of warnings and says how many it dropped.
func TestParseWarningsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">`)
	for i := range 1000 {
		fmt.Fprintf(&b, `<url><loc>https://example.org/%d</loc><rs:md change="updated" datetime="never"/></url>`, i)
	}
	b.WriteString(`</urlset>`)
	doc, err := Parse(strings.NewReader(b.String()), "https://example.org/cl.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(doc.Entries) != 1000 {
		t.Errorf("kept %d entries, want 1000", len(doc.Entries))
	}
	if n := len(doc.Warnings); n != maxWarnings+1 {
		t.Fatalf("got %d warnings, want %d", n, maxWarnings+1)
	}
	if last, want := doc.Warnings[maxWarnings], "… and 900 more warnings"; last != want {
		t.Errorf("last warning = %q, want %q", last, want)
	}
}

// TestParseEachKeepsNoEntries: ParseEach hands a <urlset>'s entries over
// in order and keeps none, so a list of half a million entries is never
// held whole; a <sitemapindex> keeps its entries.
func TestParseEachKeepsNoEntries(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `"><rs:md capability="changelist"/>`)
	for i := range 1000 {
		fmt.Fprintf(&b, `<url><loc>https://example.org/%d</loc><rs:md change="updated" datetime="2024-01-02"/></url>`, i)
	}
	b.WriteString(`<url><loc>` + strings.Repeat("x", hints.MaxURLBytes+1) + `</loc></url></urlset>`)
	var got []string
	doc, err := ParseEach(strings.NewReader(b.String()), "https://example.org/cl.xml", func(e *Entry) {
		if e.Change != ChangeUpdated || e.Datetime == nil {
			t.Fatalf("entry %+v", e)
		}
		got = append(got, e.Loc)
	})
	if err != nil {
		t.Fatalf("ParseEach: %v", err)
	}
	if len(doc.Entries) != 0 || doc.Capability != CapChangeList {
		t.Errorf("kept %d entries, capability %q", len(doc.Entries), doc.Capability)
	}
	if len(got) != 1000 || got[0] != "https://example.org/0" || got[999] != "https://example.org/999" {
		t.Errorf("handed over %d entries", len(got))
	}
	if len(doc.Warnings) != 1 {
		t.Errorf("warnings %q", doc.Warnings)
	}

	index := `<sitemapindex xmlns="` + sm09 + `"><sitemap><loc>https://example.org/a.xml</loc></sitemap></sitemapindex>`
	doc, err = ParseEach(strings.NewReader(index), "https://example.org/i.xml", func(e *Entry) { t.Errorf("handed over %s", e.Loc) })
	if err != nil || len(doc.Entries) != 1 {
		t.Errorf("index: %v, %d entries", err, len(doc.Entries))
	}
}

// TestParseEachHandsOverWhatPrecedesAnError: the parse runs ahead of
// each in batches, and a document broken after 600 entries (more than
// two batches) still hands over those 600, in order, on the caller's
// goroutine, before ParseEach says it is not well-formed.
func TestParseEachHandsOverWhatPrecedesAnError(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `"><rs:md capability="changelist"/>`)
	for i := range 600 {
		fmt.Fprintf(&b, `<url><loc>https://example.org/%d</loc><rs:md change="created" datetime="2024-01-02"/></url>`, i)
	}
	b.WriteString(`<url><loc>https://example.org/broken</loc></urlset>`)
	var got []string
	_, err := ParseEach(strings.NewReader(b.String()), "https://example.org/cl.xml", func(e *Entry) {
		got = append(got, e.Loc) // no lock: each runs on this goroutine
	})
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("error %v, want ErrMalformed", err)
	}
	if len(got) != 600 {
		t.Fatalf("handed over %d entries, want 600", len(got))
	}
	for i, loc := range got {
		if want := fmt.Sprintf("https://example.org/%d", i); loc != want {
			t.Fatalf("entry %d is %s, want %s", i, loc, want)
		}
	}
}

// TestParseEachLetsGoWhenEachStops: when each ends its goroutine (a
// test's Fatal, a panic) the parse does not wait for ever to hand over
// the rest: the goroutine reading ahead ends too.
func TestParseEachLetsGoWhenEachStops(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `"><rs:md capability="changelist"/>`)
	for i := range 5000 {
		fmt.Fprintf(&b, `<url><loc>https://example.org/%d</loc><rs:md change="created" datetime="2024-01-02"/></url>`, i)
	}
	b.WriteString(`</urlset>`)
	before := runtime.NumGoroutine()
	func() {
		defer func() { recover() }()
		ParseEach(strings.NewReader(b.String()), "https://example.org/cl.xml", func(e *Entry) { panic("stop") })
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after each stopped, %d before", n, before)
	}
}
