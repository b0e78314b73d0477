package iiif

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The JSON of a stream is read into these, whose flexible fields accept
// every shape a value is found in (a string or an object, a type or a
// list of types) and leave what they cannot read empty rather than fail
// the whole document.

// flexString is a string, or empty when the value is anything else.
type flexString string

func (s *flexString) UnmarshalJSON(b []byte) error {
	var v string
	if json.Unmarshal(b, &v) == nil {
		*s = flexString(v)
	}
	return nil
}

// flexTypes is a type, or a list of them (JSON-LD allows both).
type flexTypes []string

func (t *flexTypes) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = flexTypes{one}
		return nil
	}
	var many []flexString
	if json.Unmarshal(b, &many) == nil {
		for _, m := range many {
			*t = append(*t, string(m))
		}
	}
	return nil
}

func (t flexTypes) has(name string) bool {
	for _, v := range t {
		// JSON-LD documents sometimes keep a prefix ("as:Update",
		// "sc:Manifest").
		if v == name || strings.HasSuffix(v, ":"+name) {
			return true
		}
	}
	return false
}

// first is the first type that is not empty.
func (t flexTypes) first() string {
	for _, v := range t {
		if v != "" {
			if i := strings.LastIndexByte(v, ':'); i >= 0 && !strings.Contains(v, "/") {
				return v[i+1:]
			}
			return v
		}
	}
	return ""
}

// rawRef is a reference: an object with an id (or @id) and a type, or
// just the id as a string.
type rawRef struct {
	ID     flexString      `json:"id"`
	AtID   flexString      `json:"@id"`
	Type   flexTypes       `json:"type"`
	AtType flexTypes       `json:"@type"`
	Label  json.RawMessage `json:"label"`
}

func (r *rawRef) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*r = rawRef{ID: flexString(s)}
		return nil
	}
	type plain rawRef
	var p plain
	if json.Unmarshal(b, &p) == nil {
		*r = rawRef(p)
	}
	return nil
}

func (r *rawRef) id() string {
	if r.ID != "" {
		return strings.TrimSpace(string(r.ID))
	}
	return strings.TrimSpace(string(r.AtID))
}

func (r *rawRef) types() flexTypes {
	if len(r.Type) > 0 {
		return r.Type
	}
	return r.AtType
}

// rawDoc is any of the documents: a collection, a page, a Manifest.
type rawDoc struct {
	ID           flexString      `json:"id"`
	AtID         flexString      `json:"@id"`
	Type         flexTypes       `json:"type"`
	AtType       flexTypes       `json:"@type"`
	Label        json.RawMessage `json:"label"`
	First        rawRef          `json:"first"`
	Last         rawRef          `json:"last"`
	Prev         rawRef          `json:"prev"`
	Next         rawRef          `json:"next"`
	PartOf       json.RawMessage `json:"partOf"`
	TotalItems   json.RawMessage `json:"totalItems"`
	OrderedItems json.RawMessage `json:"orderedItems"`
	Homepage     json.RawMessage `json:"homepage"`
	Related      json.RawMessage `json:"related"`
}

func (d *rawDoc) id() string {
	r := rawRef{ID: d.ID, AtID: d.AtID}
	return r.id()
}

func (d *rawDoc) types() flexTypes {
	if len(d.Type) > 0 {
		return d.Type
	}
	return d.AtType
}

// rawActivity is one activity.
type rawActivity struct {
	Type      flexTypes  `json:"type"`
	AtType    flexTypes  `json:"@type"`
	Object    rawRef     `json:"object"`
	Target    rawRef     `json:"target"`
	Origin    rawRef     `json:"origin"`
	EndTime   flexString `json:"endTime"`
	StartTime flexString `json:"startTime"`
}

// decode reads data, a JSON object, into v; the error says whether it
// is JSON at all.
func decode(data []byte, v any) error {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return &Error{Msg: "the document is empty", Err: ErrNotJSON}
	}
	if trimmed[0] != '{' {
		if trimmed[0] == '<' {
			return &Error{Msg: "the document is not JSON but markup (an HTML or XML page)", Err: ErrNotJSON}
		}
		if trimmed[0] == '[' || json.Valid(trimmed) {
			return &Error{Msg: "the document is JSON but not a JSON object", Err: ErrNotStream}
		}
		return &Error{Msg: "the document is not JSON", Err: ErrNotJSON}
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return &Error{Msg: "the document is not valid JSON at byte " + strconv.FormatInt(se.Offset, 10) + ": " + se.Error(), Err: ErrNotJSON}
		}
		return &Error{Msg: "the document could not be read: " + err.Error(), Err: ErrNotStream}
	}
	return nil
}

// httpURL returns u when it is an absolute http(s) URL no longer than
// MaxURLBytes, else "".
func httpURL(u string) string {
	if u == "" || len(u) > MaxURLBytes || !utf8.ValidString(u) {
		return ""
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return ""
	}
	for _, r := range u {
		if r < 0x20 || r == 0x7f {
			return ""
		}
	}
	return u
}
