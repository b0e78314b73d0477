package arc

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds on what one page may bring into the store.
const (
	MaxSummary  = 2000 // runes of ai_summary kept
	MaxTitle    = 300  // runes of the snapshot title kept
	MaxTags     = 20
	MaxTagRunes = 100
)

// builder validates a document field by field as it is decoded.
type builder struct {
	sm       *Sitemap
	have     map[string]bool
	sawPages bool
	n        int // pages seen
	unnamed  int // invalid entries listed without a URL
}

func newBuilder(f Format) *builder {
	return &builder{sm: &Sitemap{Format: f}, have: map[string]bool{}}
}

// top takes one top-level field. Unknown fields are ignored.
func (b *builder) top(key string, v any) *Error {
	switch key {
	case "arc_sitemap_version":
		b.have[key] = true
		switch x := v.(type) {
		case string:
			b.sm.Version = x
		default:
			// version: 2.1 unquoted in YAML (or JSON) is read as written.
			lit, ok := numberLiteral(v)
			if !ok {
				return errorf("arc_sitemap_version must be a string such as \"2.1\", not %s", describe(v))
			}
			b.sm.Version = lit
		}
	case "site":
		b.have[key] = true
		s, ok := v.(string)
		if !ok {
			return errorf("site must be a string (the site's URL), not %s", describe(v))
		}
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return errorf("site %q is not an absolute URI", s)
		}
		b.sm.Site = s
	case "generated_at":
		b.have[key] = true
		s, ok := v.(string)
		if !ok {
			return errorf("generated_at must be a date-time string, not %s", describe(v))
		}
		t, err := ParseDateTime(s)
		if err != nil {
			return errorf("generated_at: %v", err)
		}
		b.sm.GeneratedAt = t
	case "crawl_rate":
		b.crawlRate(v)
	case "metadata":
		if m, ok := v.(map[string]any); ok && b.sm.CrawlRate == "" {
			if r, ok := m["crawl_rate"]; ok {
				b.crawlRate(r)
			}
		}
	}
	return nil
}

func (b *builder) crawlRate(v any) {
	switch x := v.(type) {
	case nil:
	case string:
		b.sm.CrawlRate = strings.TrimSpace(x)
	default:
		b.sm.Warnings = append(b.sm.Warnings, fmt.Sprintf("crawl_rate must be a string such as \"1/s\", not %s; it was ignored", describe(v)))
	}
}

// finish checks that every required field was there.
func (b *builder) finish() (*Sitemap, error) {
	var missing []string
	for _, k := range []string{"arc_sitemap_version", "site", "generated_at"} {
		if !b.have[k] {
			missing = append(missing, k)
		}
	}
	if !b.sawPages {
		missing = append(missing, "pages")
	}
	if len(missing) > 0 {
		return nil, errorf("the required field %s is missing", strings.Join(missing, ", "))
	}
	if v := b.sm.Version; v != "2" && !strings.HasPrefix(v, "2.") {
		b.sm.Warnings = append(b.sm.Warnings, fmt.Sprintf("arc_sitemap_version %q is not 2.x, the version tidings knows; it was read as 2.1", v))
	}
	return b.sm, nil
}

// maxUnnamedSkipped bounds the invalid entries without a URL listed one by
// one; the harvest shows far fewer warnings anyway.
const maxUnnamedSkipped = 100

// skip lists an invalid entry, or only counts it once enough entries that
// name no page are listed.
func (b *builder) skip(s Skipped) {
	if s.URL == "" && b.unnamed >= maxUnnamedSkipped {
		b.sm.SkippedUnlisted++
		return
	}
	if s.URL == "" {
		b.unnamed++
	}
	b.sm.Skipped = append(b.sm.Skipped, s)
}

// page validates one entry of pages, keeping it or listing it as skipped.
func (b *builder) page(v any) {
	b.n++
	m, ok := v.(map[string]any)
	if !ok {
		b.skip(Skipped{Index: b.n, Reason: "is not an object"})
		return
	}
	p, reason := pageOf(m)
	if reason != "" {
		s := Skipped{Index: b.n, Reason: reason, Private: privateHint(m)}
		if raw, ok := m["url"].(string); ok && pageURL(raw) {
			s.URL = raw
		}
		b.skip(s)
		return
	}
	if p.Private() {
		// Never kept, so never stored or shown.
		p.Summary, p.Tags, p.Title = "", nil, ""
	}
	b.sm.Pages = append(b.sm.Pages, p)
}

// privateHint reads the privacy fields of an entry that failed validation.
// Anything but a plain ai_indexable true and no auth_required counts, so
// that a broken entry never shows a URL the site meant to keep out.
func privateHint(m map[string]any) bool {
	if x, ok := m["ai_indexable"].(bool); !ok || !x {
		return true
	}
	if x, ok := m["auth_required"]; ok && x != nil && x != false {
		return true
	}
	d, _ := m["robots_directive"].(string)
	return noindex(d)
}

// pageOf checks an entry against the page schema; a non-empty reason says
// why it fails.
func pageOf(m map[string]any) (Page, string) {
	var p Page
	raw, ok := m["url"]
	switch {
	case !ok || raw == nil:
		return p, "has no url"
	case !isString(raw):
		return p, "has a url that is not a string"
	case !pageURL(raw.(string)):
		return p, "has a url that is not an absolute http or https URL"
	}
	p.URL = raw.(string)
	switch x := m["ai_indexable"].(type) {
	case bool:
		p.Indexable = x
	case nil:
		return p, "has no ai_indexable"
	default:
		return p, fmt.Sprintf("has ai_indexable %s; it must be true or false", describe(x))
	}
	var reason string
	str := func(key string, dst *string) {
		switch x := m[key].(type) {
		case nil:
		case string:
			*dst = x
		default:
			if reason == "" {
				reason = fmt.Sprintf("has %s %s; it must be a string", key, describe(x))
			}
		}
	}
	var lastmod string
	str("lastmod", &lastmod)
	str("ai_summary", &p.Summary)
	str("ai_checksum", &p.Checksum)
	str("robots_directive", &p.RobotsDirective)
	if reason != "" {
		return p, reason
	}
	if lastmod != "" {
		t, err := ParseDateTime(lastmod)
		if err != nil {
			return p, "has lastmod " + err.Error()
		}
		p.Lastmod = &t
	}
	if r := pageExtras(m, &p); r != "" {
		return p, r
	}
	p.Summary = clip(strings.TrimSpace(p.Summary), MaxSummary)
	return p, ""
}

// pageExtras checks the optional fields that are not plain strings.
func pageExtras(m map[string]any, p *Page) string {
	switch x := m["auth_required"].(type) {
	case nil:
	case bool:
		p.AuthRequired = x
	default:
		return fmt.Sprintf("has auth_required %s; it must be true or false", describe(x))
	}
	if raw, ok := m["crawl_priority"]; ok && raw != nil {
		f, isNum := numberValue(raw)
		if !isNum || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Sprintf("has crawl_priority %s; it must be a number from 0 to 1", describe(raw))
		}
		p.Priority = &f
	}
	switch x := m["ai_tags"].(type) {
	case nil:
	case []any:
		tags, r := tagsOf(x)
		if r != "" {
			return r
		}
		p.Tags = tags
	default:
		return fmt.Sprintf("has ai_tags %s; it must be a list of strings", describe(x))
	}
	switch x := m["ai_snapshot"].(type) {
	case nil:
	case map[string]any:
		if t, ok := x["title"].(string); ok {
			p.Title = clip(strings.Join(strings.Fields(t), " "), MaxTitle)
		}
	default:
		return fmt.Sprintf("has ai_snapshot %s; it must be an object", describe(x))
	}
	return ""
}

func tagsOf(list []any) ([]string, string) {
	var tags []string
	seen := map[string]bool{}
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Sprintf("has an ai_tags item %s; tags must be strings", describe(item))
		}
		s = tagText(s)
		if s == "" || seen[s] || len(tags) >= MaxTags {
			continue
		}
		seen[s] = true
		tags = append(tags, s)
	}
	return tags, ""
}

// tagText is a tag as kept: spaces folded, clipped to MaxTagRunes.
func tagText(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), MaxTagRunes)
}

func pageURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

func numberValue(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	case number:
		return x.f, !math.IsInf(x.f, 0)
	}
	return 0, false
}

func numberLiteral(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case number:
		return x.lit, true
	}
	return "", false
}

// describe names a value in an error: its type, and short values as
// written.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(clip(x, 40)) + " (a string)"
	case json.Number, number:
		lit, _ := numberLiteral(x)
		return clip(lit, 40) + " (a number)"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case compound:
		if x == listValue {
			return "a list"
		}
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	// Converting only the kept part: a summary may be megabytes long.
	end, runes := 0, 0
	for end = range s {
		if runes == n {
			break
		}
		runes++
	}
	return string([]rune(s[:end])) + "…"
}

// ParseDateTime reads an RFC 3339 date-time, and the ISO 8601 and YAML
// forms sites write instead: a space or lower-case t before the time, no
// seconds, no time zone (UTC, as YAML says), an offset without colon, or a
// date alone (midnight UTC). The result is UTC.
func ParseDateTime(s string) (time.Time, error) {
	t, err := parseDateTime(strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date-time such as 2025-11-09T08:00:00Z", clip(s, 40))
	}
	return t.UTC(), nil
}
