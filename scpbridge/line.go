package scpbridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"

	"tidings/hints"
)

// lineJSON is any line: the metadata line has "collection", a page the rest.
// Pointers tell a missing field from an empty one; a field of the wrong
// type is left nil by encoding/json, so it reads as missing too.
type lineJSON struct {
	Collection  json.RawMessage `json:"collection"`
	URL         *string         `json:"url"`
	Title       *string         `json:"title"`
	Description *string         `json:"description"`
	Author      *string         `json:"author"`
	Published   *string         `json:"published"`
	Modified    *string         `json:"modified"`
	Language    *string         `json:"language"`
	Content     *[]blockJSON    `json:"content"`

	wrongType       []string // string fields dropped for their type
	contentNotArray bool
}

type metaJSON struct {
	ID        *string `json:"id"`
	Section   *string `json:"section"`
	Type      *string `json:"type"`
	Generated *string `json:"generated"`
	Since     *string `json:"since"`
	Checksum  *string `json:"checksum"`
	Version   *string `json:"version"`
}

// blockJSON is one content block; a block that is not an object is left
// zero, without a type.
type blockJSON struct {
	Type  *string  `json:"type"`
	Level *float64 `json:"level"`
	Text  string   `json:"text"`
	Code  string   `json:"code"`
	URL   string   `json:"url"`
}

var knownBlocks = map[string]bool{
	"text": true, "heading": true, "link": true, "image": true, "list": true, "code": true,
	"table": true, "quote": true, "video": true, "audio": true, "structured": true,
}

// langTag is a loose BCP 47 shape: enough to keep markup out of xml:lang.
var langTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

const maxURL = hints.MaxURLBytes

// lineParser parses the lines of one file.
type lineParser struct {
	site *url.URL // pages must be on its host; nil: any host
	warn func(Warning)
}

// parseLine decodes a non-blank line. Only malformed JSON, or JSON that
// is not an object, is an error here; fields are judged by meta and page.
func parseLine(line []byte) (*lineJSON, error) {
	if len(line) == 0 || line[0] != '{' {
		if json.Valid(line) {
			return nil, errors.New("the line is JSON but not an object")
		}
		return nil, errors.New("the line is not valid JSON")
	}
	var lj lineJSON
	err := json.Unmarshal(line, &lj)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return nil, fmt.Errorf("the line is not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if te != nil {
		lj.dropWrongTypes(line)
	}
	return &lj, nil
}

// dropWrongTypes clears every string field whose JSON value is not a
// string. encoding/json reports only the first such field and leaves an
// allocated empty string behind, so the slow path looks at each one.
func (lj *lineJSON) dropWrongTypes(line []byte) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return
	}
	for _, f := range []struct {
		name string
		ptr  **string
	}{
		{"url", &lj.URL}, {"title", &lj.Title}, {"description", &lj.Description}, {"author", &lj.Author},
		{"published", &lj.Published}, {"modified", &lj.Modified}, {"language", &lj.Language},
	} {
		for k, v := range fields {
			// encoding/json matched the name case-insensitively too.
			if strings.EqualFold(k, f.name) && (len(v) == 0 || v[0] != '"') {
				*f.ptr = nil
				lj.wrongType = append(lj.wrongType, f.name)
				break
			}
		}
	}
	// A block that is not an object is only left zero (a warning); content
	// that is not an array at all is a missing field.
	if v, ok := fields["content"]; ok && (len(v) == 0 || v[0] != '[') {
		lj.Content, lj.contentNotArray = nil, string(v) != "null"
	}
}

// meta validates the metadata line.
func (p *lineParser) meta(n int, raw json.RawMessage) (*Meta, *Error) {
	bad := func(format string, args ...any) (*Meta, *Error) {
		return nil, &Error{Line: n, Msg: "the collection metadata " + fmt.Sprintf(format, args...), Err: ErrMeta}
	}
	var mj metaJSON
	if raw[0] != '{' {
		return bad("is not an object")
	}
	if err := json.Unmarshal(raw, &mj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return bad("has %q of the wrong type", te.Field)
		}
		return bad("is not valid JSON")
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"id", mj.ID}, {"section", mj.Section}, {"type", mj.Type}, {"generated", mj.Generated}, {"version", mj.Version}} {
		if f.v == nil || strings.TrimSpace(*f.v) == "" {
			return bad("has no %q", f.name)
		}
	}
	m := &Meta{ID: *mj.ID, Section: *mj.Section, Type: *mj.Type, Version: *mj.Version}
	if m.Type != TypeSnapshot && m.Type != TypeDelta {
		return bad("has type %q, neither %q nor %q", m.Type, TypeSnapshot, TypeDelta)
	}
	t, err := hints.ParseW3CDatetime(*mj.Generated)
	if err != nil {
		return bad("has a generated time %q that is not a date-time", *mj.Generated)
	}
	m.Generated = t
	if mj.Since != nil {
		s, err := hints.ParseW3CDatetime(*mj.Since)
		if err != nil {
			return bad("has a since time %q that is not a date-time", *mj.Since)
		}
		m.Since = &s
	}
	if m.Type == TypeDelta && m.Since == nil {
		return bad("is of a delta without %q", "since")
	}
	if mj.Checksum != nil {
		m.Checksum = *mj.Checksum
	}
	return m, nil
}

// page validates a page line. A nil page with a nil error is a page skipped
// with a warning.
func (p *lineParser) page(n int, lj *lineJSON, line []byte) (*Page, *Error) {
	missing := func(field string) (*Page, *Error) {
		return nil, &Error{Line: n, Msg: fmt.Sprintf("the page has no %q (or not a string)", field), Err: ErrMissingField}
	}
	switch {
	case lj.URL == nil:
		return missing("url")
	case lj.Title == nil:
		return missing("title")
	case lj.Description == nil:
		return missing("description")
	case lj.Modified == nil:
		return missing("modified")
	case lj.Language == nil:
		return missing("language")
	case lj.contentNotArray:
		return nil, &Error{Line: n, Msg: `the page's "content" is not an array`, Err: ErrMissingField}
	case lj.Content == nil:
		return nil, &Error{Line: n, Msg: `the page has no "content"`, Err: ErrMissingField}
	}
	mod, err := hints.ParseW3CDatetime(*lj.Modified)
	if err == nil && mod.IsZero() {
		// "0001" is a date, but the zero time, which callers read as
		// "no date".
		err = errors.New("the zero time")
	}
	if err != nil {
		return nil, &Error{Line: n, Msg: fmt.Sprintf("the page's modified time %q is not a date-time", *lj.Modified), Err: ErrMissingField}
	}
	pg := &Page{Line: n, Title: *lj.Title, Description: *lj.Description, Modified: mod}
	u, msg := p.checkURL(*lj.URL)
	if msg != "" {
		p.warn(Warning{n, "skipped the page: " + msg})
		return nil, nil
	}
	pg.URL = u
	for _, f := range lj.wrongType {
		if f == "author" || f == "published" {
			p.warn(Warning{n, fmt.Sprintf("%s: %q is not a string; ignored", pg.URL, f)})
		}
	}
	if lj.Author != nil {
		pg.Author = *lj.Author
	}
	if l := strings.TrimSpace(*lj.Language); langTag.MatchString(l) {
		pg.Language = l
	} else {
		p.warn(Warning{n, fmt.Sprintf("%s: the language %q is not a language tag; ignored", pg.URL, clip(l))})
	}
	if lj.Published != nil {
		if t, err := hints.ParseW3CDatetime(*lj.Published); err == nil {
			pg.Published = &t
		} else {
			p.warn(Warning{n, fmt.Sprintf("%s: the published time %q is not a date-time; ignored", pg.URL, clip(*lj.Published))})
		}
	}
	p.blocks(pg, *lj.Content)
	pg.Hash = hashLine(line)
	return pg, nil
}

// checkURL returns the page URL with its scheme and host lowercased, or
// says what is wrong with it.
func (p *lineParser) checkURL(raw string) (string, string) {
	raw = strings.TrimSpace(raw)
	if len(raw) > maxURL {
		return "", fmt.Sprintf("its URL is longer than %d bytes", maxURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || raw == "":
		return "", fmt.Sprintf("%q is not a URL", clip(raw))
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Sprintf("%q is not an http or https URL", clip(raw))
	case u.Host == "" || u.Opaque != "":
		return "", fmt.Sprintf("%q has no host", clip(raw))
	case u.User != nil:
		return "", fmt.Sprintf("%q contains a user name", clip(raw))
	case p.site != nil && !sameHost(u, p.site):
		// The sitemap protocol's rule: a sitemap speaks only of its own
		// host, so no site can put entries about others' pages in its feed.
		return "", fmt.Sprintf("%s is not on %s, the sitemap's host", clip(raw), p.site.Host)
	}
	// Scheme and host are case-insensitive: one page, one key.
	u.Host = strings.ToLower(u.Host)
	return u.String(), ""
}

func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// blocks decodes the content blocks, skipping unknown ones and clamping
// heading levels, each with a warning.
func (p *lineParser) blocks(pg *Page, list []blockJSON) {
	pg.Content = make([]Block, 0, len(list))
	for i, b := range list {
		switch {
		case b.Type == nil:
			p.warn(Warning{pg.Line, fmt.Sprintf("%s: content block %d has no type or is malformed; skipped", pg.URL, i+1)})
			continue
		case !knownBlocks[*b.Type]:
			p.warn(Warning{pg.Line, fmt.Sprintf("%s: content block %d has the unknown type %q; skipped", pg.URL, i+1, clip(*b.Type))})
			continue
		}
		blk := Block{Type: *b.Type, Text: b.Text, URL: b.URL}
		if blk.Type == "code" {
			blk.Text = b.Code
		}
		if blk.Type == "heading" {
			blk.Level = p.level(pg, i, b.Level)
		}
		pg.Content = append(pg.Content, blk)
	}
}

func (p *lineParser) level(pg *Page, i int, v *float64) int {
	if v == nil {
		p.warn(Warning{pg.Line, fmt.Sprintf("%s: heading %d has no level; taken as 1", pg.URL, i+1)})
		return 1
	}
	l := math.Trunc(*v)
	switch {
	case l >= 1 && l <= 6 && l == *v:
		return int(l)
	case l < 1:
		l = 1
	case l > 6:
		l = 6
	}
	p.warn(Warning{pg.Line, fmt.Sprintf("%s: heading %d has level %v, outside 1–6; clamped to %d", pg.URL, i+1, *v, int(l))})
	return int(l)
}
