package rsync

import (
	"slices"
	"strings"
	"testing"
)

// TestParseWarnings checks that problems confined to one value leave the
// rest of the document usable and are reported as warnings.
func TestParseWarnings(t *testing.T) {
	src := `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <rs:md capability="changelist" from="last week" until="2024-13-01" at="2024-02-01T10:00Z"/>
  <rs:ln rel="up"/>
  <url><loc>https://example.org/a</loc><rs:md change="updated" datetime="yesterday"/></url>
  <url><loc>https://example.org/b</loc><lastmod>soon</lastmod>
    <rs:md change="updated" datetime="2024-01-02" length="big" until="2024-02-30"/></url>
  <url><loc>  </loc><rs:md change="updated" datetime="2024-01-02"/></url>
  <url><rs:md change="updated"/></url>
  <url><loc>https://example.org/c</loc><rs:ln rel="alternate"/><rs:ln href="http://[::1"/></url>
  <url><loc>https://example.org/a&#9;b</loc></url>
  <url><loc>https://example.org/d</loc><lastmod></lastmod><rs:md change="created" datetime="" length="-1"/></url>
  <sitemap><loc>https://example.org/s.xml</loc></sitemap>
</urlset>`
	doc, err := Parse(strings.NewReader(src), "https://example.org/cl.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := &Document{
		URL: "https://example.org/cl.xml", Root: RootURLSet, Capability: CapChangeList,
		At: tp(t, "2024-02-01T10:00:00Z"),
		Entries: []Entry{
			{Loc: "https://example.org/a", Change: ChangeUpdated, BadDates: []string{"datetime"}},
			{
				Loc: "https://example.org/b", Change: ChangeUpdated,
				Datetime: tp(t, "2024-01-02T00:00:00Z"), BadDates: []string{"lastmod", "until"},
			},
			{Loc: "https://example.org/c"},
			{Loc: "https://example.org/d", Change: ChangeCreated},
		},
		Warnings: []string{
			`root: rs:ln rel="up" has no href, skipped`,
			`entry 1 <https://example.org/a>: datetime "yesterday" is not a W3C datetime`,
			`entry 2 <https://example.org/b>: length "big" is not a byte count`,
			`entry 2 <https://example.org/b>: lastmod "soon" is not a W3C datetime`,
			`entry 2 <https://example.org/b>: until "2024-02-30" is not a W3C datetime`,
			`entry 3: no <loc>, skipped`,
			`entry 4: no <loc>, skipped`,
			`entry 5 <https://example.org/c>: rs:ln rel="alternate" has no href, skipped`,
			`entry 5 <https://example.org/c>: rs:ln rel="" href "http://[::1" is not a URL, skipped`,
			"entry 6: <loc> \"https://example.org/a\\tb\" is not a URL, skipped",
			`entry 7 <https://example.org/d>: length "-1" is not a byte count`,
			`<sitemap> inside <urlset> ignored`,
			`root rs:md: from "last week" is not a W3C datetime`,
			`root rs:md: until "2024-13-01" is not a W3C datetime`,
		},
		// The datetime that could not be read is what FindBadDatetime
		// counts; the other dates are warnings alone.
		WarningCodes: map[int]string{1: FindBadDatetime},
	}
	sameDoc(t, doc, want)
}

// TestParseEntryBadDates checks which attributes BadDates names for each
// date an entry can carry.
func TestParseEntryBadDates(t *testing.T) {
	tests := []struct {
		name, children string
		want           []string
	}{
		{"lastmod", `<lastmod>2024-1-2</lastmod>`, []string{"lastmod"}},
		{"datetime", `<rs:md datetime="2024-01-02T25:00Z"/>`, []string{"datetime"}},
		{"from", `<rs:md from="tomorrow"/>`, []string{"from"}},
		{"until", `<rs:md until="2024/01/02"/>`, []string{"until"}},
		{"each bad one", `<rs:md datetime="x" until="y"/>`, []string{"datetime", "until"}},
		{"good dates", `<lastmod>2024</lastmod><rs:md datetime="2024-01" from="2024-01-01" until="2024-01-02T00:00:00.5Z"/>`, nil},
		{"empty date is absent", `<lastmod> </lastmod><rs:md datetime=""/>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `"><url><loc>https://example.org/a</loc>` +
				tt.children + `</url></urlset>`
			doc, err := Parse(strings.NewReader(src), "https://example.org/cl.xml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(doc.Entries) != 1 {
				t.Fatalf("got %d entries, want 1", len(doc.Entries))
			}
			if got := doc.Entries[0].BadDates; !slices.Equal(got, tt.want) {
				t.Errorf("BadDates = %q, want %q", got, tt.want)
			}
			for _, name := range tt.want {
				if !doc.Entries[0].HasBadDate(name) {
					t.Errorf("HasBadDate(%q) = false", name)
				}
			}
			if (tt.want == nil) != (len(doc.Warnings) == 0) {
				t.Errorf("warnings = %q", doc.Warnings)
			}
		})
	}
}
