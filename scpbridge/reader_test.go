package scpbridge

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"tidings/internal/scpsite"
)

const site = "https://example.org/sitemap.xml"

var (
	t0  = time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)
	gen = time.Date(2025, 1, 15, 23, 0, 0, 0, time.UTC)
)

func snapMeta() scpsite.Meta {
	return scpsite.Meta{"id": "blog-snap", "section": "blog", "type": "snapshot", "generated": gen.Format(time.RFC3339), "version": "0.1"}
}

func deltaMeta() scpsite.Meta {
	m := snapMeta()
	m["type"], m["id"], m["since"] = "delta", "blog-delta", "2025-01-14T00:00:00Z"
	return m
}

func page(path, title string) scpsite.Page {
	return scpsite.NewPage("https://example.org"+path, title, "About "+title, t0)
}

type format struct {
	name string
	pack func([]byte) []byte
}

var formats = []format{
	{"gzip", scpsite.Gzip},
	{"zstd", scpsite.Zstd},
	{"plain", func(b []byte) []byte { return b }},
}

// readAll reads every page of a file, failing the test on a fatal error.
func readAll(t *testing.T, file []byte, o Options) (*Reader, []*Page) {
	t.Helper()
	r, pages, err := tryAll(file, o)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return r, pages
}

func tryAll(file []byte, o Options) (*Reader, []*Page, error) {
	r := NewReader(bytes.NewReader(file), o)
	defer r.Close()
	var pages []*Page
	for {
		p, err := r.Next()
		if err == io.EOF {
			return r, pages, nil
		}
		if err != nil {
			return r, pages, err
		}
		pages = append(pages, p)
	}
}

func TestReadsEveryFormat(t *testing.T) {
	odd := page("/odd", "Odd")
	odd["unknown_field"] = map[string]any{"x": 1}
	odd["schema"] = map[string]any{"@type": "BlogPosting"}
	odd["published"] = "2024-12-01T10:00:00Z"
	plain := scpsite.File(snapMeta(), scpsite.NoChecksum, page("/a", "A & B"), odd)
	// CRLF line endings and blank lines are tolerated.
	crlf := bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n\r\n"))
	for _, f := range formats {
		for name, file := range map[string][]byte{"lf": plain, "crlf": crlf} {
			t.Run(f.name+"/"+name, func(t *testing.T) {
				r, pages := readAll(t, f.pack(file), Options{SitemapURL: site})
				if len(pages) != 2 || r.WarningCount() != 0 {
					t.Fatalf("pages %d warnings %v", len(pages), r.Warnings())
				}
				if r.Stats().Format != f.name {
					t.Errorf("format %q", r.Stats().Format)
				}
				m := r.Meta()
				if m == nil || m.Type != TypeSnapshot || !m.Generated.Equal(gen) || m.Section != "blog" {
					t.Fatalf("meta %+v", m)
				}
				a := pages[0]
				if a.URL != "https://example.org/a" || a.Title != "A & B" || a.Description != "About A & B" ||
					a.Author != "Ann Example" || a.Language != "en" || !a.Modified.Equal(t0) || len(a.Hash) != 64 {
					t.Errorf("page %+v", a)
				}
				if len(a.Content) != 2 || a.Content[0].Type != "heading" || a.Content[0].Level != 1 || a.Content[1].Text != "Body of A & B" {
					t.Errorf("content %+v", a.Content)
				}
				if pages[1].Published == nil || pages[1].Published.Year() != 2024 {
					t.Errorf("published %v", pages[1].Published)
				}
			})
		}
	}
}

func TestHashIgnoresLayoutOnly(t *testing.T) {
	spaced := `{"url": "https://example.org/a", "title":"A","description":"About A","modified":"2025-01-15T10:00:00Z",` + "\t" +
		`"language":"en","author":"Ann Example","content": [ {"type":"text", "text":"Body of A, with  spaces"} ]}`
	tight := `{"url":"https://example.org/a","title":"A","description":"About A","modified":"2025-01-15T10:00:00Z",` +
		`"language":"en","author":"Ann Example","content":[{"type":"text","text":"Body of A, with  spaces"}]}`
	inText := strings.Replace(tight, "with  spaces", "with spaces", 1)
	escaped := strings.Replace(tight, `"A","desc`, `"A\" ","desc`, 1)
	_, pages := readAll(t, scpsite.File(nil, 0, spaced, tight, inText, escaped), Options{})
	if pages[0].Hash != pages[1].Hash {
		t.Error("hash depends on white space between tokens")
	}
	if pages[1].Hash == pages[2].Hash || pages[1].Hash == pages[3].Hash {
		t.Error("hash blind to white space or quotes inside strings")
	}
}

func TestFatalErrorsNameTheLine(t *testing.T) {
	without := func(field string) scpsite.Page {
		p := page("/x", "X")
		delete(p, field)
		return p
	}
	wrongType := page("/x", "X")
	wrongType["title"] = 42
	badDate := page("/x", "X")
	badDate["modified"] = "yesterday"
	noSince := deltaMeta()
	delete(noSince, "since")
	badType := snapMeta()
	badType["type"] = "full"
	cases := []struct {
		name string
		meta scpsite.Meta
		bad  any // the third page line (line 4 with the metadata line)
		want error
		line int
	}{
		{"invalid JSON", snapMeta(), `{"url": "https://example.org/x", "title": }`, ErrJSON, 4},
		{"not an object", snapMeta(), `["url"]`, ErrJSON, 4},
		{"missing url", snapMeta(), without("url"), ErrMissingField, 4},
		{"missing title", snapMeta(), without("title"), ErrMissingField, 4},
		{"missing description", snapMeta(), without("description"), ErrMissingField, 4},
		{"missing modified", snapMeta(), without("modified"), ErrMissingField, 4},
		{"missing language", snapMeta(), without("language"), ErrMissingField, 4},
		{"missing content", snapMeta(), without("content"), ErrMissingField, 4},
		{"title not a string", snapMeta(), wrongType, ErrMissingField, 4},
		{"modified not a date", snapMeta(), badDate, ErrMissingField, 4},
		{"metadata after the first line", snapMeta(), map[string]any{"collection": snapMeta()}, ErrMeta, 4},
		{"delta without since", noSince, page("/x", "X"), ErrMeta, 1},
		{"unknown type", badType, page("/x", "X"), ErrMeta, 1},
	}
	for _, c := range cases {
		for _, f := range formats[:2] {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				file := scpsite.File(c.meta, scpsite.NoChecksum, page("/a", "A"), page("/b", "B"), c.bad, page("/c", "C"))
				_, _, err := tryAll(f.pack(file), Options{SitemapURL: site})
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, c.want) {
					t.Fatalf("err = %v, want %v", err, c.want)
				}
				if e.Line != c.line || !strings.HasPrefix(e.Error(), "line ") {
					t.Errorf("line %d (%s), want %d", e.Line, e, c.line)
				}
			})
		}
	}
}

func TestErrorIsSticky(t *testing.T) {
	r := NewReader(strings.NewReader("{\"url\":1}\n"), Options{})
	_, err1 := r.Next()
	_, err2 := r.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("%v then %v", err1, err2)
	}
}

func TestDecompressionFailures(t *testing.T) {
	file := scpsite.File(snapMeta(), 0, page("/a", "A"), page("/b", "B"))
	gz, zs := scpsite.Gzip(file), scpsite.Zstd(file)
	corrupt := func(b []byte) []byte {
		c := bytes.Clone(b)
		for i := len(c) / 2; i < len(c)/2+8 && i < len(c); i++ {
			c[i] ^= 0x55
		}
		return c
	}
	cases := map[string]struct {
		file []byte
		want error
	}{
		"gzip truncated": {gz[:len(gz)-12], ErrDecompress},
		"gzip corrupt":   {corrupt(gz), ErrDecompress},
		"zstd truncated": {zs[:len(zs)-6], ErrDecompress},
		// zstd's frame checksum comes at the end, after the corrupt bytes
		// were handed out: here they fail as JSON first.
		"zstd corrupt":    {corrupt(zs), nil},
		"neither":         {[]byte("PK\x03\x04 a zip file"), ErrFormat},
		"gzip then junk":  {append(bytes.Clone(gz), "junk"...), ErrDecompress},
		"brotli-ish text": {[]byte("\x8b\x02\x80{}"), ErrFormat},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := tryAll(c.file, Options{})
			var e *Error
			if c.want == nil && (errors.Is(err, ErrDecompress) || errors.Is(err, ErrJSON)) {
				c.want = err
			}
			if !errors.Is(err, c.want) || !errors.As(err, &e) || e.Line < 1 {
				t.Fatalf("err = %v, want %v naming a line", err, c.want)
			}
		})
	}
}

func TestDoubleCompressionIsUnwrapped(t *testing.T) {
	file := scpsite.File(snapMeta(), 0, page("/a", "A"))
	r, pages := readAll(t, scpsite.Gzip(scpsite.Zstd(file)), Options{})
	if len(pages) != 1 || r.Stats().Format != "gzip+zstd" {
		t.Fatalf("pages %d format %s", len(pages), r.Stats().Format)
	}
}

func TestWarnings(t *testing.T) {
	unknownBlock := page("/u", "U")
	unknownBlock["content"] = []any{
		map[string]any{"type": "carousel", "items": []any{1}},
		"not a block",
		map[string]any{"text": "no type"},
		map[string]any{"type": "text", "text": "kept"},
	}
	levels := page("/h", "H")
	levels["content"] = []any{
		map[string]any{"type": "heading", "level": 0, "text": "zero"},
		map[string]any{"type": "heading", "level": 9, "text": "nine"},
		map[string]any{"type": "heading", "level": 3, "text": "three"},
	}
	badURL := page("/x", "X")
	badURL["url"] = "javascript:alert(1)"
	relative := page("/x", "X")
	relative["url"] = "/relative"
	otherHost := scpsite.NewPage("https://evil.example/x", "Evil", "not ours", t0)
	badLang := page("/l", "L")
	badLang["language"] = `en"><script>`
	file := scpsite.File(snapMeta(), 0, unknownBlock, levels, badURL, relative, otherHost, badLang, page("/ok", "OK"))
	for _, f := range formats[:2] {
		t.Run(f.name, func(t *testing.T) {
			r, pages := readAll(t, f.pack(file), Options{SitemapURL: site})
			// 3 bad blocks, 2 clamped headings, 3 skipped pages, 1 language.
			if r.WarningCount() != 9 {
				t.Errorf("warnings %d: %v", r.WarningCount(), r.Warnings())
			}
			if len(pages) != 4 {
				t.Fatalf("pages %d, want the three invalid URLs skipped", len(pages))
			}
			if c := pages[0].Content; len(c) != 1 || c[0].Text != "kept" {
				t.Errorf("unknown blocks not skipped: %+v", c)
			}
			c := pages[1].Content
			if len(c) != 3 || c[0].Level != 1 || c[1].Level != 6 || c[2].Level != 3 {
				t.Errorf("levels not clamped: %+v", c)
			}
			if pages[2].Language != "" {
				t.Errorf("language %q kept", pages[2].Language)
			}
			if w := r.Warnings()[7]; w.Line != 6 || !strings.Contains(w.Msg, "evil.example") {
				t.Errorf("other-host warning %v", w)
			}
		})
	}
}

func TestChecksumRules(t *testing.T) {
	cases := []struct {
		rule int
		want ChecksumRule
		err  bool
	}{
		{scpsite.ChecksumWithoutField, ChecksumWithoutField, false},
		{scpsite.ChecksumAfterMetadata, ChecksumAfterMetadata, false},
		{scpsite.ChecksumWrong, "", true},
	}
	for _, c := range cases {
		for _, f := range formats[:2] {
			file := f.pack(scpsite.File(deltaMeta(), c.rule, page("/a", "A"), page("/b", "B")))
			r, pages, err := tryAll(file, Options{})
			if c.err {
				var e *Error
				if !errors.Is(err, ErrChecksum) || !errors.As(err, &e) || e.Line != 1 {
					t.Errorf("%s rule %d: err %v, want a checksum mismatch on line 1", f.name, c.rule, err)
				}
				continue
			}
			if err != nil || len(pages) != 2 || r.Checksum() != c.want {
				t.Errorf("%s rule %d: err %v pages %d matched %q", f.name, c.rule, err, len(pages), r.Checksum())
			}
		}
	}
	for _, bad := range []string{"sha256:abc123def456789...", "md5:0123", strings.Repeat("a", 64)} {
		m := deltaMeta()
		m["checksum"] = bad
		line := scpsite.Marshal(map[string]any{"collection": m})
		_, _, err := tryAll(append(line, '\n'), Options{})
		if !errors.Is(err, ErrChecksum) {
			t.Errorf("checksum %q: err %v", bad, err)
		}
	}
}

func TestWithoutChecksumCutsOneMember(t *testing.T) {
	cases := map[string]string{
		`{"collection":{"checksum":"sha256:x","id":"a"}}`:            `{"collection":{"id":"a"}}`,
		`{"collection":{"id":"a","checksum":"sha256:x"}}`:            `{"collection":{"id":"a"}}`,
		`{"collection":{"id":"a", "checksum": "sha256:x", "v":"1"}}`: `{"collection":{"id":"a", "v":"1"}}`,
		`{"x":{"checksum":1},"collection":{"checksum":"s"}}`:         `{"x":{"checksum":1},"collection":{}}`,
		`{ "collection" : { "checksum" : "s" , "id" : "a" } }`:       `{ "collection" : { "id" : "a" } }`,
	}
	for in, want := range cases {
		got, ok := withoutChecksum([]byte(in))
		if !ok || string(got) != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	if _, ok := withoutChecksum([]byte(`{"collection":{"id":"a"}}`)); ok {
		t.Error("cut a member that is not there")
	}
}

func TestLimits(t *testing.T) {
	big := page("/big", strings.Repeat("long title ", 200))
	file := scpsite.File(snapMeta(), 0, page("/a", "A"), big, page("/c", "C"))
	t.Run("line", func(t *testing.T) {
		_, pages, err := tryAll(scpsite.Zstd(file), Options{Limits: Limits{MaxLine: 1000}})
		var e *Error
		if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &e) || e.Line != 3 || len(pages) != 1 {
			t.Fatalf("err %v, pages %d", err, len(pages))
		}
	})
	t.Run("decompressed", func(t *testing.T) {
		_, _, err := tryAll(scpsite.Gzip(file), Options{Limits: Limits{MaxDecompressed: 1000}})
		if !errors.Is(err, ErrSize) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("compressed", func(t *testing.T) {
		zs := scpsite.Zstd(file)
		_, _, err := tryAll(zs, Options{Limits: Limits{MaxCompressed: int64(len(zs) - 1)}})
		if !errors.Is(err, ErrCompressedSize) {
			t.Fatalf("err %v", err)
		}
		if _, _, err := tryAll(zs, Options{Limits: Limits{MaxCompressed: int64(len(zs))}}); err != nil {
			t.Fatalf("exactly at the cap: %v", err)
		}
	})
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// bomb returns a stream of n copies of one compressed chunk holding about
// 4 MiB of pages that compress more than 100:1, without materialising it.
func bomb(pack func([]byte) []byte, n int) (io.Reader, int64) {
	line := scpsite.Marshal(page("/same", strings.Repeat("a", 4000)))
	var buf bytes.Buffer
	for buf.Len() < 4<<20 {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	chunk := pack(buf.Bytes())
	readers := make([]io.Reader, n)
	for i := range readers {
		readers[i] = bytes.NewReader(chunk)
	}
	return io.MultiReader(readers...), int64(len(chunk) * n)
}

func TestCompressionBombAbortsEarly(t *testing.T) {
	for _, f := range formats[:2] {
		t.Run(f.name, func(t *testing.T) {
			src, size := bomb(f.pack, 2000)
			cr := &countReader{r: src}
			var err error
			r := NewReader(cr, Options{})
			defer r.Close()
			for err == nil {
				_, err = r.Next()
			}
			var e *Error
			if !errors.Is(err, ErrRatio) || !errors.As(err, &e) {
				t.Fatalf("err %v, want the ratio exceeded", err)
			}
			if cr.n > size/50 {
				t.Errorf("read %d of %d compressed bytes before aborting", cr.n, size)
			}
			if s := r.Stats(); s.Decompressed > 4<<20+s.Compressed*100 {
				t.Errorf("decompressed %d from %d", s.Decompressed, s.Compressed)
			}
			t.Logf("%s: aborted after %d of %d bytes (%s)", f.name, cr.n, size, e)
		})
	}
}

// TestSmallCompressionBomb: a file far over 100:1 is rejected however
// small it stays (under a megabyte here, which a size-based grace let
// through), while a tiny file of one repetitive page, over 100:1 only
// because it is tiny, is read.
func TestSmallCompressionBomb(t *testing.T) {
	line := scpsite.Marshal(page("/same", strings.Repeat("a", 4000)))
	var buf bytes.Buffer
	for buf.Len() < 900<<10 {
		buf.Write(line)
		buf.WriteByte('\n')
	}
	tiny := scpsite.File(deltaMeta(), scpsite.NoChecksum, page("/long", strings.Repeat("a", 10<<10)))
	for _, f := range formats[:2] {
		t.Run(f.name, func(t *testing.T) {
			bomb := f.pack(buf.Bytes())
			r, _, err := tryAll(bomb, Options{})
			if !errors.Is(err, ErrRatio) {
				t.Fatalf("%d bytes decompressing to %d: err %v, want the ratio exceeded", len(bomb), buf.Len(), err)
			}
			if s := r.Stats(); s.Decompressed > 100*s.Compressed+256<<10 {
				t.Errorf("decompressed %d from %d before stopping", s.Decompressed, s.Compressed)
			}
			small := f.pack(tiny)
			if len(tiny) <= 100*len(small) {
				t.Fatalf("the tiny file is only %d:1", len(tiny)/len(small))
			}
			if _, pages := readAll(t, small, Options{}); len(pages) != 1 {
				t.Errorf("tiny file: %d pages", len(pages))
			}
		})
	}
}
