package pagetext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzExtract(f *testing.F) {
	f.Add([]byte(realisticPage(4<<10, 0)), "text/html")
	f.Add([]byte(`<title>a &amp; b</title><p>x<br>y</p><pre>1
2</pre><table><tr><td>c<td>d</table><img alt="z">`), "")
	f.Add([]byte("<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>"), "text/html")
	f.Add([]byte("\xff\xfe<\x00p\x00>\x00"), "text/html; charset=utf-16")
	f.Add([]byte("<script>x<noscript><template><svg><p>never"), "application/xhtml+xml")
	f.Add([]byte("line\r\nline\x00\n"), "text/plain")
	f.Add([]byte("\x89PNG\r\n\x1a\n"), "image/png")
	const maxText = 512
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		s, err := Options{MaxText: maxText}.Extract(body, contentType, "https://a.example/p")
		if err != nil {
			t.Fatal(err)
		}
		checkSnapshot(t, s, maxText)
		// Big pages are streamed instead; fuzz that path on small ones too.
		streamed := &Snapshot{}
		extractHTML(streamed, body, contentType, "", maxText, true, false, "", nil, false)
		streamed.TextHash = "-"
		checkSnapshot(t, streamed, maxText)
	})
}

// checkSnapshot holds what every snapshot promises: text within the cap,
// valid UTF-8, trimmed non-empty lines and no control characters.
func checkSnapshot(t *testing.T, s *Snapshot, maxText int) {
	t.Helper()
	if len(s.Text) > maxText || !utf8.ValidString(s.Text) || !utf8.ValidString(s.Title) {
		t.Fatalf("text of %d bytes (cap %d), valid %v", len(s.Text), maxText, utf8.ValidString(s.Text))
	}
	if s.Text != "" && !s.HasText() {
		t.Fatal("text without a text hash")
	}
	for _, l := range strings.Split(s.Text, "\n") {
		if s.Text != "" && (l == "" || l != strings.TrimSpace(l)) {
			t.Fatalf("line %q is empty or not trimmed", l)
		}
		if strings.IndexFunc(l, unicode.IsControl) >= 0 || strings.IndexFunc(s.Title, unicode.IsControl) >= 0 {
			t.Fatalf("control character in %q or %q", l, s.Title)
		}
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc", "a\nB\nc\nd")
	f.Add("", "x")
	f.Add("x\n", "\nx")
	f.Add("same", "same")
	f.Add("The cat sat on the mat.", "The <dog> sat on a mat!")
	f.Add("\xff\n\xfe", "\xfe\n\xff\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		d := Compare(old, new)
		_ = d.HTML()
		_ = d.FeedHTML()
		_ = d.Summary()
		_ = d.Unified("old", "new")
		if d.Unchanged() != (old == new) {
			t.Fatalf("Unchanged = %v for %q → %q", d.Unchanged(), old, new)
		}
		if got, err := d.Apply(old); err != nil || got != new {
			t.Fatalf("Apply(%q) = %q, %v; want %q", old, got, err, new)
		}
		if !utf8.ValidString(old) || !utf8.ValidString(new) {
			return // JSON stores invalid UTF-8 as U+FFFD; extracted text is always valid
		}
		blob, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var stored Diff
		if err := json.Unmarshal(blob, &stored); err != nil {
			t.Fatal(err)
		}
		if got, err := stored.Apply(old); err != nil || got != new {
			t.Fatalf("stored Apply(%q) = %q, %v; want %q", old, got, err, new)
		}
	})
}
