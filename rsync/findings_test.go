package rsync

import (
	"strings"
	"testing"
	"time"
)

func findingsOf(t *testing.T, src, u string) *Document {
	t.Helper()
	doc, err := Parse(strings.NewReader(src), u)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return doc
}

func TestFindingsOfAChangeList(t *testing.T) {
	src := `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <url><loc>https://example.org/a</loc><rs:md change="updated" datetime="2024-01-02"/></url>
  <url><loc>https://example.org/b</loc><lastmod>2024-03-01</lastmod>
    <rs:md change="updated"/></url>
  <url><loc>https://example.org/c</loc><rs:md change="renamed" datetime="2024-01-03"/></url>
  <url><loc>https://example.org/d</loc><rs:md datetime="2024-01-04"/></url>
  <url><loc>https://example.org/e</loc><rs:md change="moved" datetime="2024-01-05"/></url>
  <url><loc>https://example.org/f</loc><rs:md change="created"/></url>
  <url><loc>https://example.org/g</loc><rs:md change="created" datetime="someday"/></url>
  <rs:md capability="changelist"/>
</urlset>`
	// The root rs:md comes last: what applies is known at the end.
	doc := findingsOf(t, src, "https://example.org/cl.xml")
	want := []string{
		FindNoUp,
		FindNoFrom,
		`no-datetime ×2, first entry 2 <https://example.org/b> on line 3`,
		`unknown-change ×2, first entry 3 <https://example.org/c> on line 5 ("renamed")`,
		`no-change ×1, first entry 4 <https://example.org/d> on line 6`,
		`bad-datetime ×1, first entry 7 <https://example.org/g> on line 9`,
	}
	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if doc.Newest == nil || !doc.Newest.Equal(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)) || doc.NewestLoc != "https://example.org/b" {
		t.Errorf("newest %v at %q, want 2024-03-01 at /b (its lastmod, for want of a datetime)", doc.Newest, doc.NewestLoc)
	}
}

func TestFindingsOfCapabilityListsAndDescriptions(t *testing.T) {
	capList := `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <rs:md capability="capabilitylist"/>
  <url><loc>https://example.org/cl.xml</loc><rs:md capability="changelist"/></url>
</urlset>`
	doc := findingsOf(t, capList, "https://example.org/caps.xml")
	if len(doc.Findings) != 2 || doc.Findings[0].Code != FindNoUp || doc.Findings[1].Code != FindNoDescribes {
		t.Errorf("capability list findings %v, want no-up and no-describes", doc.Findings)
	}
	if doc.Newest != nil {
		t.Errorf("a capability list has a newest change: %v", doc.Newest)
	}
	desc := `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <rs:md capability="description"/>
  <url><loc>https://example.org/a/caps.xml</loc><rs:md capability="capabilitylist"/>
    <rs:ln rel="describes" href="https://example.org/a/"/></url>
  <url><loc>https://example.org/b/caps.xml</loc><rs:md capability="capabilitylist"/></url>
</urlset>`
	doc = findingsOf(t, desc, "https://example.org/sd.xml")
	if len(doc.Findings) != 1 || doc.Findings[0].Code != FindNoDescribes || doc.Findings[0].Loc != "https://example.org/b/caps.xml" {
		t.Errorf("Source Description findings %v, want no-describes naming b/caps.xml", doc.Findings)
	}
}

func TestNoFindingsInWellMadeDocuments(t *testing.T) {
	docs := map[string]string{
		"capability list": `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <rs:ln rel="up" href="https://example.org/sd.xml"/>
  <rs:ln rel="describes" href="https://example.org/"/>
  <rs:md capability="capabilitylist"/>
  <url><loc>https://example.org/cl.xml</loc><rs:md capability="changelist"/></url>
</urlset>`,
		"change list": `<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">
  <rs:ln rel="up" href="https://example.org/caps.xml"/>
  <rs:md capability="changelist" from="2024-01-01"/>
  <url><loc>https://example.org/a</loc><rs:md change="deleted" datetime="2024-01-02"/></url>
</urlset>`,
		"plain sitemap": `<urlset xmlns="` + sm09 + `"><url><loc>https://example.org/a</loc></url></urlset>`,
	}
	for name, src := range docs {
		if doc := findingsOf(t, src, "https://example.org/x.xml"); len(doc.Findings) != 0 {
			t.Errorf("%s: findings %v, want none", name, doc.Findings)
		}
	}
}
