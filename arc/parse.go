package arc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"path"
	"strings"
)

// Parse reads one ARC sitemap in format f and validates it against the
// schema of the specification (E.9). A document that is not valid JSON or
// YAML, or lacks a required top-level field or gives it the wrong type, is
// an *Error; a page entry that fails validation is listed in Skipped and
// the rest are read. Unknown fields are ignored, as is null for an
// optional field (the specification's own generator writes null).
func Parse(r io.Reader, f Format) (*Sitemap, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, errorf("reading the document: %v", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errorf("the document is empty")
	}
	if f == YAML {
		return parseYAML(data)
	}
	return parseJSON(data)
}

// readAll reads r in one allocation when it knows its length, as the
// bytes.Reader a harvest passes does: io.ReadAll's doubling would cost
// twice the document.
func readAll(r io.Reader) ([]byte, error) {
	l, ok := r.(interface{ Len() int })
	if !ok {
		return io.ReadAll(r)
	}
	var b bytes.Buffer
	b.Grow(l.Len() + bytes.MinRead)
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// DetectFormat tells JSON from YAML: by the Content-Type when it names
// either, else by the name's extension, else by the first character.
func DetectFormat(contentType, name string, body []byte) Format {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		switch {
		case mt == "application/json" || strings.HasSuffix(mt, "+json"):
			return JSON
		case strings.HasSuffix(mt, "/yaml") || strings.HasSuffix(mt, "/x-yaml") || strings.HasSuffix(mt, "+yaml"):
			return YAML
		}
	}
	if i := strings.IndexAny(name, "?#"); i >= 0 {
		name = name[:i]
	}
	switch strings.ToLower(path.Ext(strings.TrimSuffix(strings.ToLower(name), ".gz"))) {
	case ".json":
		return JSON
	case ".yaml", ".yml":
		return YAML
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return JSON
	}
	return YAML
}

// parseJSON reads the document in one pass, page by page, building only
// the values the rules read: everything else is checked and stepped over.
func parseJSON(data []byte) (*Sitemap, error) {
	r := &jsonReader{data: data}
	c, err := r.next()
	if err != nil {
		return nil, r.fail(err)
	}
	if c != '{' {
		// As encoding/json's Decoder did: one token is read, and a list
		// is refused at its bracket.
		if c != '[' {
			if _, err := r.value(); err != nil {
				return nil, r.fail(err)
			}
		}
		return nil, errorf("the document is not a JSON object")
	}
	b := newBuilder(JSON)
	err = r.container('{', func(key []byte) error {
		return r.alone(func() error { return b.jsonTop(r, string(key)) })
	})
	if err != nil {
		return nil, r.fail(err)
	}
	if r.ws(); r.off < len(data) {
		return nil, &Error{Line: lineAt(data, int64(r.off)), Msg: "unexpected data after the JSON object"}
	}
	return b.finish()
}

func (b *builder) jsonTop(r *jsonReader, key string) error {
	var v any
	var err error
	switch key {
	case "pages":
		return b.jsonPages(r)
	case "arc_sitemap_version", "site", "generated_at", "crawl_rate":
		v, err = r.value()
	case "metadata":
		v, err = r.record([]string{"crawl_rate"}, r.field)
	default:
		return r.skip()
	}
	if err != nil {
		return err
	}
	if e := b.top(key, v); e != nil {
		e.Line = lineAt(r.data, int64(r.off))
		return e
	}
	return nil
}

func (b *builder) jsonPages(r *jsonReader) error {
	if b.sawPages {
		return &Error{Line: lineAt(r.data, int64(r.off)), Msg: "pages is given twice"}
	}
	b.sawPages = true
	c, err := r.next()
	if err != nil {
		return err
	}
	if c != '[' {
		if c == '{' {
			r.off++
		} else if _, err := r.value(); err != nil {
			return err
		}
		return &Error{Line: lineAt(r.data, int64(r.off)), Msg: "pages must be a list of pages"}
	}
	return r.container('[', func([]byte) error {
		return r.alone(func() error {
			if c, err := r.next(); err == nil && c != '{' {
				// Not a page: checked and stepped over, nothing built.
				if err := r.skip(); err != nil {
					return err
				}
				b.page(nil)
				return nil
			}
			v, err := r.page()
			if err == nil {
				b.page(v)
			}
			return err
		})
	})
}

// pageFields are the fields of a page the rules read.
var pageFields = []string{"url", "ai_indexable", "lastmod", "ai_summary", "ai_checksum",
	"robots_directive", "auth_required", "crawl_priority", "ai_tags", "ai_snapshot"}

// page reads one entry of pages: of ai_snapshot only the title is built,
// of ai_tags only what tagsOf looks at.
func (r *jsonReader) page() (any, error) {
	return r.record(pageFields, func(name string) (any, error) {
		switch name {
		case "ai_tags":
			return r.tags()
		case "ai_snapshot":
			return r.record([]string{"title"}, r.field)
		}
		return r.value()
	})
}

func (r *jsonReader) field(string) (any, error) { return r.value() }

// tags reads ai_tags keeping what tagsOf looks at, so that a list of
// millions of tags costs no more than twenty: the tags it would keep, and
// the first item that is not a string, which fails the page.
func (r *jsonReader) tags() (any, error) {
	c, err := r.next()
	if err != nil {
		return nil, err
	}
	if c != '[' {
		return r.value()
	}
	list := []any{}
	seen := map[string]bool{}
	done := false
	err = r.container('[', func([]byte) error {
		if done {
			return r.skip()
		}
		v, err := r.value()
		if err != nil {
			return err
		}
		s, ok := v.(string)
		switch {
		case !ok:
			list, done = append(list, v), true
		case len(seen) < MaxTags:
			if t := tagText(s); t != "" && !seen[t] {
				seen[t] = true
				list = append(list, s)
			}
		}
		return nil
	})
	return list, err
}

// alone reads a value with its nesting counted from itself, as the
// Decoder counted each value it decoded.
func (r *jsonReader) alone(f func() error) error {
	d := r.depth
	r.depth = 0
	err := f()
	r.depth = d
	return err
}

// fail turns the reader's stop into the error people see, worded as
// encoding/json words it.
func (r *jsonReader) fail(err error) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, errTruncated):
		return &Error{Line: lineAt(r.data, int64(len(r.data))), Msg: "invalid JSON: the document ends too early"}
	}
	var se *json.SyntaxError
	if errors.As(json.Unmarshal(r.data, new(json.RawMessage)), &se) {
		return &Error{Line: lineAt(r.data, se.Offset), Msg: "invalid JSON: " + se.Error()}
	}
	return &Error{Line: lineAt(r.data, int64(r.off)), Msg: "invalid JSON"}
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}
