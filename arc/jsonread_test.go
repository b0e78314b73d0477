package arc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzJSONReader checks the hand-written JSON reader against the
// encoding/json Decoder it replaced: the same sitemap, or the same error,
// for any input.
func FuzzJSONReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, doc := range []string{
		`{"pages": [{"url": "https://e.org/", "ai_indexable": true, "ai_tags": ["a", "a", " b ", 1, {}], "ai_snapshot": {"title": "t", "title": 2}}]}`,
		`{"metadata": {"crawl_rate": [1]}, "site": "https://e.org", "x": {"\u0070ages": [1.5e3, -0, true, null]}, "pages": {}}`,
		`{"site": 1-2}`, `{"pages": [1.`, `"abc` + "\n", `[1, 2`, `{"a": "\ud800"} x`, `{"url\\": 1}`,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if len(bytes.TrimSpace(data)) == 0 {
			return
		}
		got, gotErr := parseJSON(data)
		want, wantErr := decoderParseJSON(data)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("error %v, the Decoder gave %v", gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("sitemap\n%+v\nthe Decoder gave\n%+v", got, want)
		}
	})
}

// decoderParseJSON is the encoding/json Decoder reading that parseJSON
// replaced, kept as the reference it must match.
func decoderParseJSON(data []byte) (*Sitemap, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	fail := func(err error) error { return decoderError(data, dec, err) }
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
			if err := b.decoderPages(dec, data); err != nil {
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

func (b *builder) decoderPages(dec *json.Decoder, data []byte) error {
	if b.sawPages {
		return &Error{Line: lineAt(data, dec.InputOffset()), Msg: "pages is given twice"}
	}
	b.sawPages = true
	tok, err := dec.Token()
	if err != nil {
		return decoderError(data, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return &Error{Line: lineAt(data, dec.InputOffset()), Msg: "pages must be a list of pages"}
	}
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			return decoderError(data, dec, err)
		}
		b.page(v)
	}
	if _, err := dec.Token(); err != nil {
		return decoderError(data, dec, err)
	}
	return nil
}

func decoderError(data []byte, dec *json.Decoder, err error) error {
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
