package imports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// ExportVersion is the version of tidings' export this package writes
// and reads.
const ExportVersion = 1

// Export is everything a person set on a tidings, as one JSON file
// the import reads back: the sites they follow with the names they gave
// them and their own rules, and how they are told of changes. Secrets
// are left out: a push target is named by its scheme and host only, and
// of the webhooks' signing secret only whether there was one.
type Export struct {
	Tidings    int            `json:"tidings_export"`
	ExportedAt time.Time      `json:"exported_at"`
	User       string         `json:"user"`
	Follows    []ExportFollow `json:"follows"`
	Settings   Settings       `json:"notifications"`
}

// ExportFollow is one site followed.
type ExportFollow struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	Rules []Rule `json:"rules,omitempty"`
}

// Settings are how a person is told of changes.
type Settings struct {
	// Email is the address digests went to, confirmed there; "" for none.
	Email string `json:"email,omitempty"`
	// Digest is how often: daily, weekly or off.
	Digest string `json:"digest"`
	// WebhookSecret says whether webhooks were signed with a secret.
	WebhookSecret bool         `json:"webhook_secret"`
	Pushes        []ExportPush `json:"push_targets,omitempty"`
}

// ExportPush is a push target without its secrets.
type ExportPush struct {
	// Service is the notification URL's scheme and host, what remains
	// of it once everything that may be a secret is taken out.
	Service string `json:"service"`
	// Site is the address of the one site it tells of; "" for all.
	Site string `json:"site,omitempty"`
}

// Redact names a notification URL without what it may carry of secrets
// (a password, a token, a key, a topic): its scheme and host.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "(unreadable URL)"
	}
	s := u.Scheme + "://"
	if u.User != nil {
		s += "…@"
	}
	s += u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Opaque != "" {
		s += "/…"
	}
	return s
}

// Write encodes an export, indented, as the file people download.
func (e Export) Write() ([]byte, error) {
	e.Tidings = ExportVersion
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("imports: write the export: %w", err)
	}
	return buf.Bytes(), nil
}

// parseJSON tells tidings' export from changedetection.io's JSON.
func parseJSON(b []byte) (*Plan, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("imports: the file is not JSON: %v", err)
	}
	switch {
	case probe["tidings_export"] != nil:
		return parseExport(b)
	case probe["watching"] != nil:
		return parseCDJSON(b)
	case probe["settings"] != nil:
		return nil, errors.New("imports: this changedetection.io file holds its settings only; import the backup's .zip, which holds the watches too")
	}
	return nil, errors.New("imports: the JSON is neither a tidings export nor changedetection.io's url-watches.json")
}

func parseExport(b []byte) (*Plan, error) {
	var e Export
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("imports: the tidings export cannot be read: %v", err)
	}
	if e.Tidings != ExportVersion {
		return nil, fmt.Errorf("imports: the export is of version %d, and this tidings reads version %d", e.Tidings, ExportVersion)
	}
	if len(e.Follows) > MaxEntries {
		return nil, fmt.Errorf("imports: the export has more than %d follows", MaxEntries)
	}
	p := &Plan{Format: FormatTidings}
	for i, f := range e.Follows {
		site, ok := p.entry(fmt.Sprintf("follow %d", i+1), f.URL, f.Title)
		if !ok {
			continue
		}
		for _, r := range f.Rules {
			if r.Kind != RuleText && r.Kind != RuleCSS {
				site.Notes = append(site.Notes, fmt.Sprintf("the rule %s of kind %s is not kept: a rule is a text or a CSS selector", quote(r.Pattern), quote(r.Kind)))
				continue
			}
			site.addRule(r.Kind, r.Pattern)
		}
	}
	s := e.Settings
	s.Email = clip(s.Email, 254)
	if len(s.Pushes) > MaxEntries {
		s.Pushes = s.Pushes[:MaxEntries]
	}
	p.Settings = &s
	return p, nil
}
