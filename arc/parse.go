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
	data, err := io.ReadAll(r)
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

// parseJSON streams the pages array, so that only one page at a time is
// held as generic values.
func parseJSON(data []byte) (*Sitemap, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(err error) error { return jsonError(data, dec, err) }
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errorf("the document is not a JSON object")
	}
	b := newBuilder(JSON)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		key, _ := tok.(string)
		if key == "pages" {
			if err := b.jsonPages(dec, data); err != nil {
				return nil, err
			}
			continue
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fail(err)
		}
		if e := b.top(key, v); e != nil {
			e.Line = lineAt(data, dec.InputOffset())
			return nil, e
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{Line: lineAt(data, dec.InputOffset()), Msg: "unexpected data after the JSON object"}
	}
	return b.finish()
}

func (b *builder) jsonPages(dec *json.Decoder, data []byte) error {
	if b.sawPages {
		return &Error{Line: lineAt(data, dec.InputOffset()), Msg: "pages is given twice"}
	}
	b.sawPages = true
	tok, err := dec.Token()
	if err != nil {
		return jsonError(data, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &Error{Line: lineAt(data, dec.InputOffset()), Msg: "pages must be a list of pages"}
	}
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			return jsonError(data, dec, err)
		}
		b.page(v)
	}
	if _, err := dec.Token(); err != nil {
		return jsonError(data, dec, err)
	}
	return nil
}

func jsonError(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The decoder's offsets are relative to its buffer; a whole-document
		// check gives the absolute one.
		var raw json.RawMessage
		if uerr := json.Unmarshal(data, &raw); !errors.As(uerr, &se) {
			se = nil
		}
	}
	switch {
	case se != nil:
		return &Error{Line: lineAt(data, se.Offset), Msg: "invalid JSON: " + se.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Line: lineAt(data, int64(len(data))), Msg: "invalid JSON: the document ends too early"}
	}
	return &Error{Line: lineAt(data, dec.InputOffset()), Msg: "invalid JSON: " + err.Error()}
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
