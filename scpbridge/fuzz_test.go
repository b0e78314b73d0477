package scpbridge

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// seedLines adds every line of testdata/lines.jsonl (the corpus under
// testdata/fuzz/ is added by go test itself).
func seedLines(f *testing.F) [][]byte {
	data, err := os.ReadFile(filepath.Join("testdata", "lines.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	return lines
}

// FuzzParseLine checks that no line makes the parser panic, that a fatal
// problem is an *Error naming the line, and that an accepted page is on the
// sitemap's host with clamped heading levels.
func FuzzParseLine(f *testing.F) {
	for _, l := range seedLines(f) {
		f.Add(l)
	}
	f.Add([]byte(""))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		meta, pg, _, err := parseOne(line, site)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line != 1 || pg != nil || meta != nil {
				t.Fatalf("error %v (%T) with meta %v page %v", err, err, meta, pg)
			}
			return
		}
		if meta != nil && (meta.Type != TypeSnapshot && meta.Type != TypeDelta || meta.Type == TypeDelta && meta.Since == nil) {
			t.Fatalf("invalid metadata accepted: %+v", meta)
		}
		if pg == nil {
			return
		}
		u, err := url.Parse(pg.URL)
		if err != nil || u.Hostname() != "example.org" || (u.Scheme != "https" && u.Scheme != "http") {
			t.Fatalf("page URL %q accepted", pg.URL)
		}
		if len(pg.Hash) != 64 || pg.Modified.IsZero() || pg.Modified.Location().String() != "UTC" {
			t.Fatalf("page %+v", pg)
		}
		for _, b := range pg.Content {
			if b.Type == "heading" && (b.Level < 1 || b.Level > 6) {
				t.Fatalf("heading level %d", b.Level)
			}
		}
	})
}

// FuzzReader feeds whole uncompressed files: reading must end in io.EOF or
// an *Error, never a panic or another error.
func FuzzReader(f *testing.F) {
	lines := seedLines(f)
	f.Add(bytes.Join(lines[:1], []byte("\n")))
	f.Add(bytes.Join(append([][]byte{lines[1]}, lines[3:7]...), []byte("\r\n")))
	f.Add([]byte("\n\n{\"collection\":{}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), Options{SitemapURL: site, Limits: Limits{MaxLine: 4096}})
		defer r.Close()
		for {
			_, err := r.Next()
			if err == io.EOF {
				return
			}
			var e *Error
			if err != nil {
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T)", err, err)
				}
				return
			}
		}
	})
}

// parseOne parses a single line as the first of a file, for the fuzz test.
func parseOne(line []byte, site string) (*Meta, *Page, []Warning, error) {
	r := NewReader(nil, Options{SitemapURL: site})
	r.started = true
	r.line = 1
	raw := append(bytes.Clone(line), '\n')
	pg, err := r.parse(bytes.TrimSpace(line), raw)
	if err != nil {
		return nil, nil, r.warnings, err
	}
	return r.meta, pg, r.warnings, nil
}
