// Package imports reads the files people move in with: a changedetection.io
// backup, an urlwatch urls.yaml, a plain list of addresses, an OPML file,
// and tidings' own export. Bytes in, a Plan out, no I/O: what a file asks
// to follow, with the names, tags and rules it gives, and what in it
// cannot be followed and why. Whether an address may be followed is the
// follow use case's to say.
package imports

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"tidings/opml"
)

// Limits of a file.
const (
	// MaxBytes bounds a text file: a list, urls.yaml, JSON, OPML.
	MaxBytes = 2 << 20
	// MaxZipBytes bounds a changedetection.io backup, which carries the
	// history of its watches beside the JSON read here.
	MaxZipBytes = 32 << 20
	// MaxEntries bounds the entries (watches, jobs, lines, outlines) one
	// file may hold, as opml.MaxOutlines does OPML's.
	MaxEntries = opml.MaxOutlines
	// MaxRules bounds the rules one site is given by a file.
	MaxRules = 50
	// MaxTags bounds the tags kept of one entry.
	MaxTags = 20
	// maxText bounds a title, a tag or a rule kept, in characters.
	maxText = 200
	// maxURL bounds an address kept, in bytes.
	maxURL = 2048
)

// Formats a Plan is read from.
const (
	FormatOPML            = "opml"
	FormatChangeDetection = "changedetection.io"
	FormatURLWatch        = "urlwatch"
	FormatList            = "list"
	FormatTidings         = "tidings"
)

// Kinds of a rule, as the follow use case names them.
const (
	RuleText = "text" // a line containing a text, or matching /a pattern/
	RuleCSS  = "css"  // the parts of a page a CSS selector matches
)

// ErrTooLarge is wrapped by the error Parse returns for a file over its
// limit.
var ErrTooLarge = errors.New("imports: the file is too large")

// Rule is a rule for what a site's pages hold that is no news.
type Rule struct {
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
}

// Site is one address a file asks to follow.
type Site struct {
	URL   string
	Title string   // the name the file gives it; may be empty
	Tags  []string // its tags or folders, by name
	Rules []Rule
	// Notes say what of the entry is not kept, and why.
	Notes []string
	// From names the entry in the file (line 3, job 2, a watch's id).
	From string
}

// Refusal is an entry of the file that is not followed, with why.
type Refusal struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// Plan is what a file asks for.
type Plan struct {
	Format  string
	Sites   []Site
	Refused []Refusal
	// Settings are the notification settings of a tidings export; nil
	// for the other formats.
	Settings *Settings
}

func (p *Plan) refuse(what, why string) { p.Refused = append(p.Refused, Refusal{What: what, Why: why}) }

// Parse reads a file of any of the formats, telling which by its
// content. Errors are sentences a person can act on.
func Parse(data []byte) (*Plan, error) {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		if len(data) > MaxZipBytes {
			return nil, fmt.Errorf("%w: a backup is read up to %d MiB", ErrTooLarge, MaxZipBytes>>20)
		}
		return parseCDZip(data)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: a file is read up to %d MiB", ErrTooLarge, MaxBytes>>20)
	}
	text := bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	head := bytes.TrimSpace(text)
	switch {
	case len(head) == 0:
		return nil, errors.New("imports: the file is empty")
	case head[0] == '<':
		return parseOPML(data)
	case !utf8.Valid(text):
		return nil, errors.New("imports: the file is not text in UTF-8, nor a changedetection.io backup (a .zip)")
	case head[0] == '{':
		return parseJSON(head)
	case yamlLike(text):
		return parseURLWatch(text)
	}
	return parseList(text), nil
}

var yamlKey = regexp.MustCompile(`(?m)^(---\s*$|(url|navigate|command|name|kind|filter)\s*:\s)`)

// yamlLike tells an urlwatch file from a list: a document separator, or
// the keys of a job at the start of a line.
func yamlLike(text []byte) bool { return yamlKey.Match(text) }

func parseOPML(data []byte) (*Plan, error) {
	outlines, skipped, err := opml.Parse(bytes.NewReader(data), MaxBytes)
	if err != nil && len(skipped) == 0 {
		return nil, err
	}
	p := &Plan{Format: FormatOPML}
	for _, s := range skipped {
		what, why, ok := strings.Cut(s, ": ")
		if !ok {
			what, why = "an outline", s
		}
		p.refuse(what, why)
	}
	for i, o := range outlines {
		addr := o.HTMLURL
		if addr == "" {
			addr = o.XMLURL
		}
		p.Sites = append(p.Sites, Site{URL: addr, Title: o.Title, From: fmt.Sprintf("outline %d", i+1)})
	}
	return p, nil
}

// clip cuts s to n characters, the last an ellipsis, after taking out
// control characters and runs of white space.
func clip(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r < 0x20 || r == 0x7f
	}), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// quote names a value of the file in a message, cut short.
func quote(s string) string { return fmt.Sprintf("%q", clip(s, 80)) }

// addRule adds a rule to a site unless it has it or has MaxRules.
func (s *Site) addRule(kind, pattern string) {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return
	}
	r := Rule{Kind: kind, Pattern: pattern}
	for _, have := range s.Rules {
		if have == r {
			return
		}
	}
	if len(s.Rules) >= MaxRules {
		s.Notes = append(s.Notes, fmt.Sprintf("the rule %s is not kept: a site takes at most %d", quote(pattern), MaxRules))
		return
	}
	if utf8.RuneCountInString(pattern) > maxText {
		s.Notes = append(s.Notes, fmt.Sprintf("the rule %s is not kept: a rule has at most %d characters", quote(pattern), maxText))
		return
	}
	s.Rules = append(s.Rules, r)
}

// addTag adds a tag by name unless the site has it or MaxTags.
func (s *Site) addTag(tag string) {
	tag = clip(tag, maxText)
	if tag == "" || len(s.Tags) >= MaxTags {
		return
	}
	for _, t := range s.Tags {
		if t == tag {
			return
		}
	}
	s.Tags = append(s.Tags, tag)
}

// entry makes a site of an address, or refuses it when it is too long
// to be one.
func (p *Plan) entry(from, url, title string) (*Site, bool) {
	url = strings.TrimSpace(url)
	if len(url) > maxURL {
		p.refuse(from, fmt.Sprintf("the address is longer than %d bytes", maxURL))
		return nil, false
	}
	if len(p.Sites) >= MaxEntries {
		p.refuse(from, fmt.Sprintf("a file is read up to its %dth entry", MaxEntries))
		return nil, false
	}
	p.Sites = append(p.Sites, Site{URL: url, Title: clip(title, maxText), From: from})
	return &p.Sites[len(p.Sites)-1], true
}
