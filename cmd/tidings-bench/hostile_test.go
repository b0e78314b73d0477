package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/arc"
	"tidings/rsync"
)

var testAt = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestWriteRepeated(t *testing.T) {
	for _, n := range []int64{0, 1, 7, 64 << 10, 64<<10 + 3, 200_001} {
		var b bytes.Buffer
		if err := writePad(&b, n); err != nil || int64(b.Len()) != n || strings.Trim(b.String(), "a") != "" {
			t.Errorf("writePad %d: %d bytes, %v", n, b.Len(), err)
		}
		b.Reset()
		if err := writeRepeated(&b, "- 0\n", n); err != nil || int64(b.Len()) != 4*n || int64(strings.Count(b.String(), "- 0\n")) != n {
			t.Errorf("writeRepeated %d units: %d bytes, %v", n, b.Len(), err)
		}
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n, writes int }

func (f *failAfter) Write(p []byte) (int, error) {
	f.writes++
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errors.New("closed")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestGeneratorsStopAtFirstError(t *testing.T) {
	w := &failAfter{n: 1 << 20}
	doc := changeListDoc{base: "http://h", name: "c", entries: 1, urlBytes: 80, longLoc: 45_000_000, at: testAt}
	if err := doc.write(w); err == nil {
		t.Fatal("no error from a writer that failed")
	}
	if w.writes > 40 {
		t.Errorf("%d writes after the writer failed; want the generator to stop", w.writes)
	}
	w = &failAfter{n: 1 << 20}
	if err := (arcDoc{site: "http://h", size: 31_000_000, at: testAt}).writeYAML(w); err == nil || w.writes > 40 {
		t.Errorf("YAML: error %v after %d writes", err, w.writes)
	}
}

func TestChangeListDoc(t *testing.T) {
	// URLs short enough for tidings' parser to keep, so that it checks
	// the document's shape.
	var b bytes.Buffer
	doc := changeListDoc{base: "http://h", name: "3", entries: 4, urlBytes: 300, longLoc: 2000, at: testAt}
	if err := doc.write(&b); err != nil {
		t.Fatal(err)
	}
	parsed, err := rsync.Parse(&b, "http://h/changes-3.xml")
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Capability != rsync.CapChangeList || len(parsed.Entries) != 5 {
		t.Fatalf("capability %q, %d entries; want a change list of 5", parsed.Capability, len(parsed.Entries))
	}
	seen := map[string]bool{}
	for i, e := range parsed.Entries {
		want := 300
		if i == 4 {
			want = 2000
		}
		if len(e.Loc) != want || !strings.HasPrefix(e.Loc, "http://h/pages/3-") || seen[e.Loc] {
			t.Errorf("entry %d: a URL of %d bytes starting %.20q (seen before: %v); want %d, unique", i, len(e.Loc), e.Loc, seen[e.Loc], want)
		}
		seen[e.Loc] = true
		if e.Change != "updated" || e.Datetime == nil || !e.Datetime.Equal(testAt) {
			t.Errorf("entry %d: %s at %v", i, e.Change, e.Datetime)
		}
	}
}

// TestChangeListDocLongLoc checks the sizes of what the parser would skip.
func TestChangeListDocLongLoc(t *testing.T) {
	var b bytes.Buffer
	doc := changeListDoc{base: "http://h", name: "c", entries: 2, urlBytes: 40_000, longLoc: 300_000, at: testAt}
	if err := doc.write(&b); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for rest := b.String(); ; {
		_, after, ok := strings.Cut(rest, "<loc>")
		if !ok {
			break
		}
		loc, tail, _ := strings.Cut(after, "</loc>")
		sizes = append(sizes, len(loc))
		rest = tail
	}
	if want := []int{40_000, 40_000, 300_000}; !slices.Equal(sizes, want) {
		t.Errorf("<loc> sizes %v, want %v", sizes, want)
	}
}

func TestChangeListIndexAndCapabilityList(t *testing.T) {
	var b bytes.Buffer
	if err := writeChangeListIndex(&b, "http://h", 3, testAt); err != nil {
		t.Fatal(err)
	}
	idx, err := rsync.Parse(&b, "http://h/index.xml")
	if err != nil {
		t.Fatal(err)
	}
	if !idx.IsIndex() || len(idx.Entries) != 3 || idx.Entries[2].Loc != "http://h/changes-2.xml" {
		t.Errorf("index: %v, %d entries", idx.IsIndex(), len(idx.Entries))
	}
	b.Reset()
	if err := writeCapabilityList(&b, "http://h", "http://h/index.xml"); err != nil {
		t.Fatal(err)
	}
	cl, err := rsync.Parse(&b, "http://h/cap.xml")
	if err != nil {
		t.Fatal(err)
	}
	if cl.Capability != rsync.CapCapabilityList || len(cl.Entries) != 1 || cl.Entries[0].Capability != rsync.CapChangeList {
		t.Errorf("capability list: %q, %+v", cl.Capability, cl.Entries)
	}
	b.Reset()
	if err := writeSourceDescription(&b, "http://h"); err != nil {
		t.Fatal(err)
	}
	sd, err := rsync.Parse(&b, "http://h/.well-known/resourcesync")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.Entries) != 1 || sd.Entries[0].Loc != "http://h/cap.xml" {
		t.Errorf("source description: %+v", sd.Entries)
	}
}

func TestARCDocs(t *testing.T) {
	doc := arcDoc{site: "http://h", size: 50_000, at: testAt}
	for _, f := range []struct {
		format arc.Format
		write  func(io.Writer) error
	}{{arc.YAML, doc.writeYAML}, {arc.JSON, doc.writeJSON}} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		if b.Len() < 50_000 || b.Len() > 50_004 {
			t.Errorf("%s: %d bytes, want 50,000 or a few more", f.format, b.Len())
		}
		sm, err := arc.Parse(&b, f.format)
		if err != nil {
			t.Fatalf("%s: %v", f.format, err)
		}
		if sm.Site != "http://h" || len(sm.Pages) != 2 || sm.Pages[1].URL != "http://h/about" || len(sm.Skipped) != 0 {
			t.Errorf("%s: site %q, pages %+v, skipped %v", f.format, sm.Site, sm.Pages, sm.Skipped)
		}
	}
}

func TestHostileSite(t *testing.T) {
	s, err := startHostileSite(func(base string) map[string]hostileDoc {
		list := changeListDoc{base: base, name: "c", entries: 1, urlBytes: 100, longLoc: 200_000, at: testAt}
		return resourceSyncDocs(base, base+"/changes.xml", map[string]hostileDoc{"/changes.xml": {"application/xml", list.write}})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		t.Fatalf("site at %s, want loopback", s.base)
	}
	var total int64
	for _, p := range []string{"/.well-known/resourcesync", "/cap.xml", "/changes.xml", "/robots.txt"} {
		resp, err := http.Get(s.base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		total += int64(len(body))
		if p == "/robots.txt" {
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", p, resp.StatusCode)
			}
			continue
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/xml" {
			t.Errorf("%s: %d %s", p, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if _, err := rsync.Parse(bytes.NewReader(body), s.base+p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if total < 200_000 || s.sent() != total {
		t.Errorf("sent %d bytes, counted %d", total, s.sent())
	}
}

func TestCodeSpan(t *testing.T) {
	for in, want := range map[string]string{
		"":              "nothing",
		"a | b":         "`a \\| b`",
		"use `tidings`": "`use 'tidings'`",
	} {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileSizes(t *testing.T) {
	dir := t.TempDir()
	a := dir + "/a.db"
	if err := os.WriteFile(a, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a+"-wal", make([]byte, 24), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := fileSizes(a, a+"-wal", a+"-missing"); n != 1024 {
		t.Errorf("fileSizes = %d, want 1024", n)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0.0 kB", 9340: "9.3 kB", 999_949: "999.9 kB", 1_000_000: "1.0 MB", 962_300_000: "962.3 MB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
