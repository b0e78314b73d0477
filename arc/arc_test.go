package arc

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func parseFile(t *testing.T, name string) *Sitemap {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format := JSON
	if strings.HasSuffix(name, ".yaml") {
		format = YAML
	}
	sm, err := Parse(f, format)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return sm
}

func pageByURL(sm *Sitemap, u string) *Page {
	for i := range sm.Pages {
		if sm.Pages[i].URL == u {
			return &sm.Pages[i]
		}
	}
	return nil
}

func TestParseJSON(t *testing.T) {
	sm := parseFile(t, "sitemap.json")
	if sm.Version != "2.1" || sm.Site != "https://example.com" || sm.CrawlRate != "1/s" {
		t.Errorf("header: %+v", sm)
	}
	if want := time.Date(2025, 11, 9, 8, 0, 0, 0, time.UTC); !sm.GeneratedAt.Equal(want) || sm.GeneratedAt.Location() != time.UTC {
		t.Errorf("generated_at = %v, want %v in UTC", sm.GeneratedAt, want)
	}
	if len(sm.Pages) != 5 {
		t.Fatalf("pages = %d, want 5 valid", len(sm.Pages))
	}
	signup := pageByURL(sm, "https://example.com/signup")
	if signup.Title != "Create Your Account" || signup.Checksum != "sha256:af3c" || *signup.Priority != 0.8 ||
		!reflect.DeepEqual(signup.Tags, []string{"signup", "onboarding", "user-account"}) || signup.Private() {
		t.Errorf("signup page: %+v", signup)
	}
	pricing := pageByURL(sm, "https://example.com/pricing")
	if want := time.Date(2025, 11, 7, 7, 30, 0, 0, time.UTC); pricing.Lastmod == nil || !pricing.Lastmod.Equal(want) {
		t.Errorf("pricing lastmod = %v, want %v (offset applied)", pricing.Lastmod, want)
	}
	if pricing.Summary != "" || pricing.Private() {
		t.Errorf("pricing: null summary and snapshot must read as absent: %+v", pricing)
	}
	for _, u := range []string{"account", "drafts", "staging"} {
		p := pageByURL(sm, "https://example.com/"+u)
		if p == nil || !p.Private() {
			t.Errorf("%s should be read and marked private: %+v", u, p)
			continue
		}
		if p.Summary != "" || p.Tags != nil || p.Title != "" {
			t.Errorf("%s: a private page's summary must be dropped at once: %+v", u, p)
		}
	}
	var reasons []string
	for _, s := range sm.Skipped {
		reasons = append(reasons, s.String())
	}
	want := []string{
		"page 6 has no url",
		"page 7 (https://example.com/bad-priority) has crawl_priority 1.5 (a number); it must be a number from 0 to 1",
		`page 8 has ai_indexable "yes" (a string); it must be true or false`,
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("skipped:\n%q\nwant\n%q", reasons, want)
	}
}

// TestParseYAMLMeansWhatJSONMeans: unquoted timestamps become RFC 3339
// times, yes/no/on stay strings as they would be in JSON, and an unquoted
// version number is read as written.
func TestParseYAMLMeansWhatJSONMeans(t *testing.T) {
	sm := parseFile(t, "sitemap.yaml")
	if sm.Format != YAML || sm.Version != "2.1" || sm.CrawlRate != "10/m" {
		t.Errorf("header: %+v", sm)
	}
	if want := time.Date(2025, 11, 9, 8, 0, 0, 0, time.UTC); !sm.GeneratedAt.Equal(want) {
		t.Errorf("generated_at = %v, want %v (no zone is UTC)", sm.GeneratedAt, want)
	}
	signup := pageByURL(sm, "https://example.com/signup")
	if signup == nil || signup.Summary != "no" || !reflect.DeepEqual(signup.Tags, []string{"signup", "on", "no"}) || signup.Title != "Create Your Account" {
		t.Errorf("signup: %+v", signup)
	}
	pricing := pageByURL(sm, "https://example.com/pricing")
	if want := time.Date(2025, 11, 7, 0, 0, 0, 0, time.UTC); pricing == nil || pricing.Lastmod == nil || !pricing.Lastmod.Equal(want) {
		t.Errorf("date-only lastmod: %+v", pricing)
	}
	if len(sm.Skipped) != 1 || !strings.Contains(sm.Skipped[0].String(), `ai_indexable "no" (a string)`) || strings.Contains(sm.Skipped[0].String(), "drafts") {
		t.Errorf("skipped = %v, want the drafts page, without its URL: `no` is a string, as in JSON, and the page hints it is private", sm.Skipped)
	}
}

func TestParseErrors(t *testing.T) {
	const head = `"arc_sitemap_version": "2.1", "site": "https://example.com", "generated_at": "2025-11-09T08:00:00Z"`
	tests := []struct {
		name   string
		format Format
		doc    string
		want   string
	}{
		{"empty", JSON, "  \n", "arc: the document is empty"},
		{"trailing comma", JSON, "{\n" + head + ",\n\"pages\": [1,]\n}", "arc: line 3: invalid JSON: invalid character ']' looking for beginning of value"},
		{"truncated", JSON, "{" + head + `, "pages": [`, "arc: line 1: invalid JSON: the document ends too early"},
		{"not an object", JSON, `[1, 2]`, "arc: the document is not a JSON object"},
		{"trailing data", JSON, "{" + head + `, "pages": []} {}`, "arc: line 1: unexpected data after the JSON object"},
		{"missing fields", JSON, `{"site": "https://example.com"}`, "arc: the required field arc_sitemap_version, generated_at, pages is missing"},
		{"pages not a list", JSON, "{" + head + `, "pages": {"url": "x"}}`, "arc: line 1: pages must be a list of pages"},
		{"pages twice", JSON, "{" + head + `, "pages": [], "pages": []}`, "arc: line 1: pages is given twice"},
		{"site not a URI", JSON, `{"site": "example.com"}`, `arc: line 1: site "example.com" is not an absolute URI`},
		{"bad generated_at", JSON, `{"generated_at": "yesterday"}`, `arc: line 1: generated_at: "yesterday" is not a date-time such as 2025-11-09T08:00:00Z`},
		{"generated_at a number", JSON, `{"generated_at": 20251109}`, "arc: line 1: generated_at must be a date-time string, not 20251109 (a number)"},
		{"version an object", JSON, `{"arc_sitemap_version": {}}`, `arc: line 1: arc_sitemap_version must be a string such as "2.1", not an object`},
		{"yaml syntax", YAML, "site: https://example.com\npages:\n  - url: [\n", "arc: line 3: invalid YAML: did not find expected node content"},
		{"yaml not a mapping", YAML, "- 1\n- 2\n", "arc: line 1: the document is not a YAML mapping"},
		{"yaml generated_at bool", YAML, "arc_sitemap_version: '2.1'\nsite: https://example.com\ngenerated_at: yes\npages: []\n", `arc: line 3: generated_at: "yes" is not a date-time such as 2025-11-09T08:00:00Z`},
		{"yaml alias bomb", YAML, "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n", "aliases expand to too much data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.doc), tt.format)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v\nwant %q", err, tt.want)
			}
		})
	}
}

func TestParseMalformedFile(t *testing.T) {
	f, err := os.Open("testdata/malformed.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = Parse(f, JSON)
	if err == nil || err.Error() != "arc: line 7: invalid JSON: invalid character ']' looking for beginning of value" {
		t.Errorf("err = %v", err)
	}
}

func TestPageValidation(t *testing.T) {
	const head = `{"arc_sitemap_version": "2.1", "site": "https://example.com", "generated_at": "2025-11-09T08:00:00Z", "pages": [`
	tests := []struct{ page, want string }{
		{`"https://example.com/"`, "page 1 is not an object"},
		{`{"url": 5, "ai_indexable": true}`, "page 1 has a url that is not a string"},
		{`{"url": "/relative", "ai_indexable": true}`, "page 1 has a url that is not an absolute http or https URL"},
		{`{"url": "https://example.com/a"}`, "page 1 has no ai_indexable"},
		{`{"url": "https://example.com/a", "ai_indexable": true, "auth_required": "no"}`, `page 1 has auth_required "no" (a string); it must be true or false`},
		{`{"url": "https://example.com/a", "ai_indexable": true, "lastmod": "soon"}`, `page 1 (https://example.com/a) has lastmod "soon" is not a date-time such as 2025-11-09T08:00:00Z`},
		{`{"url": "https://example.com/a", "ai_indexable": true, "ai_tags": ["a", 2024]}`, "page 1 (https://example.com/a) has an ai_tags item 2024 (a number); tags must be strings"},
		{`{"url": "https://example.com/a", "ai_indexable": true, "ai_tags": "a, b"}`, `page 1 (https://example.com/a) has ai_tags "a, b" (a string); it must be a list of strings`},
		{`{"url": "https://example.com/a", "ai_indexable": true, "ai_summary": 3}`, "page 1 (https://example.com/a) has ai_summary 3 (a number); it must be a string"},
		{`{"url": "https://example.com/a", "ai_indexable": true, "crawl_priority": -0.1}`, "page 1 (https://example.com/a) has crawl_priority -0.1 (a number); it must be a number from 0 to 1"},
		{`{"url": "https://example.com/a", "ai_indexable": true, "ai_snapshot": []}`, "page 1 (https://example.com/a) has ai_snapshot a list; it must be an object"},
		{`{"url": "https://example.com/secret", "ai_indexable": false, "lastmod": "soon"}`, "page 1 has lastmod \"soon\" is not a date-time such as 2025-11-09T08:00:00Z"},
	}
	for _, tt := range tests {
		sm, err := Parse(strings.NewReader(head+tt.page+"]}"), JSON)
		if err != nil {
			t.Errorf("%s: %v", tt.page, err)
			continue
		}
		if len(sm.Pages) != 0 || len(sm.Skipped) != 1 || sm.Skipped[0].String() != tt.want {
			t.Errorf("%s:\n got pages %d, skipped %v\nwant %q", tt.page, len(sm.Pages), sm.Skipped, tt.want)
		}
	}
}

func TestYAMLCrawlPriorityNaN(t *testing.T) {
	doc := "arc_sitemap_version: '2.1'\nsite: https://example.com\ngenerated_at: 2025-11-09\npages:\n  - {url: 'https://example.com/a', ai_indexable: true, crawl_priority: .nan}\n  - {url: 'https://example.com/b', ai_indexable: true, crawl_priority: 1}\n"
	sm, err := Parse(strings.NewReader(doc), YAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Pages) != 1 || sm.Pages[0].URL != "https://example.com/b" || len(sm.Skipped) != 1 {
		t.Errorf("pages %+v skipped %v; want NaN refused and 1 accepted", sm.Pages, sm.Skipped)
	}
}

func TestParseDateTime(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2025-11-09T08:00:00Z", "2025-11-09T08:00:00Z"},
		{"2025-11-09t08:00:00z", "2025-11-09T08:00:00Z"},
		{"2025-11-09T08:00:00.123456Z", "2025-11-09T08:00:00.123456Z"},
		{"2025-11-09T10:00:00+02:00", "2025-11-09T08:00:00Z"},
		{"2025-11-09T10:00:00+0200", "2025-11-09T08:00:00Z"},
		{"2001-12-14 21:59:43.10 -5", "2001-12-15T02:59:43.1Z"},
		{"2025-11-09 08:00", "2025-11-09T08:00:00Z"},
		{"2025-11-09", "2025-11-09T00:00:00Z"},
		{"2025-1-9", "2025-01-09T00:00:00Z"},
		{"2016-12-31T23:59:60Z", "2016-12-31T23:59:59Z"},
	}
	for _, tt := range tests {
		got, err := ParseDateTime(tt.in)
		if err != nil || got.Format(time.RFC3339Nano) != tt.want {
			t.Errorf("ParseDateTime(%q) = %v, %v; want %s", tt.in, got.Format(time.RFC3339Nano), err, tt.want)
		}
	}
	for _, bad := range []string{"", "2025-02-30", "2025-13-01", "2025-11-09T24:00:00Z", "2025-11-09T08:00:00+25:00", "Nov 9, 2025", "2025-11-09T08"} {
		if _, err := ParseDateTime(bad); err == nil {
			t.Errorf("ParseDateTime(%q) succeeded", bad)
		}
	}
}

func TestParseCrawlRate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1/s", time.Second},
		{"10/m", 6 * time.Second},
		{"10/min", 6 * time.Second},
		{"0.5/s", 2 * time.Second},
		{"120 / hour", 30 * time.Second},
		{"30 per minute", 2 * time.Second},
		{"1/5s", 5 * time.Second},
		{"1/1000000d", 24 * time.Hour},
	}
	for _, tt := range tests {
		got, err := ParseCrawlRate(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseCrawlRate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "fast", "0/s", "1/fortnight", "-1/s"} {
		if _, err := ParseCrawlRate(bad); err == nil {
			t.Errorf("ParseCrawlRate(%q) succeeded", bad)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		ct, name, body string
		want           Format
	}{
		{"application/json; charset=utf-8", "x.yaml", "a: 1", JSON},
		{"application/yaml", "x.json", "{}", YAML},
		{"text/x-yaml", "", "", YAML},
		{"application/ld+json", "", "", JSON},
		{"text/plain", "https://e.org/arc.yml?v=2", "{", YAML},
		{"application/octet-stream", "https://e.org/arc-sitemap.json.gz", "", JSON},
		{"", "https://e.org/arc", "\ufeff  {\"a\": 1}", JSON},
		{"", "https://e.org/arc", "a: 1", YAML},
	}
	for _, tt := range tests {
		if got := DetectFormat(tt.ct, tt.name, []byte(tt.body)); got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %v, want %v", tt.ct, tt.name, got, tt.want)
		}
	}
}

func TestDatasetLinks(t *testing.T) {
	page := `<!doctype html><html><head><title>x</title>
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Dataset", "name": "ARC Sitemap",
 "url": "https://example.com/arc-sitemap.json",
 "distribution": [{"@type": "DataDownload", "encodingFormat": "application/json"}]}
</script>
<script type="application/ld+json">{"@graph": [
  {"@type": ["schema:Dataset"], "name": "Open data", "url": "/data/",
   "distribution": {"@type": "DataDownload", "encodingFormat": "application/x-yaml", "contentUrl": "/data/arc.yaml"}},
  {"@type": "Dataset", "name": "Prices", "url": "/prices.csv"},
  {"@type": "Organization", "url": "/about.json"}]}</script>
<script type="application/ld+json">{not json</script>
<script>{"@type": "Dataset", "url": "/ignored.json"}</script>
</head><body></body></html>`
	got := DatasetLinks(strings.NewReader(page), "https://example.com/index.html")
	want := []string{"https://example.com/arc-sitemap.json", "https://example.com/data/arc.yaml"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DatasetLinks = %q, want %q", got, want)
	}
}
