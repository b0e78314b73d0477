package rsync

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// tp parses an RFC 3339 time for expected values.
func tp(t *testing.T, s string) *time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad test time %q: %v", s, err)
	}
	v = v.UTC()
	return &v
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameDoc fails the test with both documents as JSON when they differ.
// The findings have tests of their own (findings_test.go).
func sameDoc(t *testing.T, got, want *Document) {
	t.Helper()
	if got != nil {
		g := *got
		g.Findings, g.Newest, g.NewestLoc = nil, nil, ""
		got = &g
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	g, _ := json.MarshalIndent(got, "", "  ")
	w, _ := json.MarshalIndent(want, "", "  ")
	t.Errorf("document differs\ngot:\n%s\nwant:\n%s", g, w)
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file string
		url  string
		want func(t *testing.T) *Document
	}{
		{"source-description.xml", "https://example.com/.well-known/resourcesync", func(t *testing.T) *Document {
			return &Document{
				URL: "https://example.com/.well-known/resourcesync", Root: RootURLSet,
				Capability: CapDescription,
				Links:      []Link{{Rel: "describedby", Href: "https://example.com/info-about-my-website.xml"}},
				Entries: []Entry{{
					Loc:        "https://example.com/my-shrine/capabilitylist.xml",
					Capability: CapCapabilityList,
					Links: []Link{
						{Rel: "describes", Href: "https://example.com/my-shrine/"},
						{Rel: "describedby", Href: "https://example.com/my-shrine/info-about-my-shrine.xml"},
					},
				}},
			}
		}},
		{"capability-list.xml", "https://example.com/my-shrine/capabilitylist.xml", func(t *testing.T) *Document {
			return &Document{
				URL: "https://example.com/my-shrine/capabilitylist.xml", Root: RootURLSet,
				Capability: CapCapabilityList,
				Links: []Link{
					{Rel: "up", Href: "https://example.com/description.xml"},
					{Rel: "describes", Href: "https://example.com/my-shrine/"},
					{Rel: "describedby", Href: "https://example.com/info-about-my-shrine.xml"},
				},
				Entries: []Entry{{Loc: "https://example.com/my-shrine/changelist.xml", Capability: CapChangeList}},
			}
		}},
		{"change-list.xml", "https://example.com/my-shrine/changelist.xml", func(t *testing.T) *Document {
			return &Document{
				URL: "https://example.com/my-shrine/changelist.xml", Root: RootURLSet,
				Capability: CapChangeList,
				From:       tp(t, "1972-12-31T00:00:00Z"),
				Until:      tp(t, "2022-11-07T10:00:00Z"),
				Links:      []Link{{Rel: "up", Href: "https://example.com/my-shrine/capabilitylist.xml"}},
				Entries: []Entry{
					{Loc: "http://example.com/my-shrine/my-page/", Change: ChangeUpdated, Datetime: tp(t, "2022-11-06T00:00:00Z")},
					{
						Loc:      "https://example.com/my-shrine/new.html",
						Lastmod:  tp(t, "2022-11-06T08:30:00Z"),
						Change:   ChangeCreated,
						Datetime: tp(t, "2022-11-06T08:30:15.25Z"),
						Hash:     "md5:1584abdf8ebdc9802ac0c6a7402c03b6",
						Length:   8876,
						Type:     "text/html",
						Links:    []Link{{Rel: "alternate", Href: "https://example.com/my-shrine/new.pdf", Type: "application/pdf"}},
					},
					{Loc: "https://example.com/my-shrine/gone.html", Change: ChangeDeleted, Datetime: tp(t, "2022-11-07T08:00:00Z")},
				},
			}
		}},
		{"change-list-index.xml", "https://example.com/my-shrine/changelist.xml", func(t *testing.T) *Document {
			return &Document{
				URL: "https://example.com/my-shrine/changelist.xml", Root: RootSitemapIndex,
				Capability: CapChangeList,
				At:         tp(t, "2022-11-07T10:00:00Z"),
				From:       tp(t, "2022-01-01T00:00:00Z"),
				Links:      []Link{{Rel: "up", Href: "https://example.com/my-shrine/capabilitylist.xml"}},
				Entries: []Entry{
					{
						Loc:        "https://example.com/my-shrine/changelist-2022-1.xml",
						Capability: CapChangeList,
						From:       tp(t, "2022-01-01T00:00:00Z"),
						Until:      tp(t, "2022-07-01T00:00:00Z"),
					},
					{
						Loc:        "https://example.com/my-shrine/changelist-2022-2.xml",
						Capability: CapChangeList,
						From:       tp(t, "2022-07-01T00:00:00Z"),
					},
				},
			}
		}},
		{"bom.xml", "https://example.org/cl.xml", func(t *testing.T) *Document {
			return &Document{
				URL: "https://example.org/cl.xml", Root: RootURLSet,
				Capability: CapChangeList,
				From:       tp(t, "2024-05-01T00:00:00Z"),
				Entries: []Entry{{
					Loc:      "https://example.org/caf%C3%A9/",
					Change:   ChangeUpdated,
					Datetime: tp(t, "2024-05-02T12:00:00Z"),
				}},
			}
		}},
		{"latin1.xml", "https://example.org/cap.xml", func(t *testing.T) *Document {
			return &Document{
				URL: "https://example.org/cap.xml", Root: RootURLSet,
				Capability: CapCapabilityList,
				Links:      []Link{{Rel: "describedby", Href: "https://example.org/m%C3%A9ta.xml", Type: "application/xml"}},
				Entries: []Entry{{
					Loc:        "https://example.org/d%C3%A9j%C3%A0-vu/",
					Capability: CapChangeList,
					Links:      []Link{{Rel: "describes", Href: "https://example.org/Gal%C3%A9rie/"}},
				}},
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := Parse(strings.NewReader(readFixture(t, tt.file)), tt.url)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			sameDoc(t, doc, tt.want(t))
		})
	}
}

func TestParseHelpers(t *testing.T) {
	doc, err := Parse(strings.NewReader(readFixture(t, "capability-list.xml")), "https://example.com/c.xml")
	if err != nil {
		t.Fatal(err)
	}
	if doc.IsIndex() {
		t.Error("IsIndex() = true for a urlset")
	}
	if got := doc.Link("describes"); got != "https://example.com/my-shrine/" {
		t.Errorf(`Link("describes") = %q`, got)
	}
	if got := doc.Link("nope"); got != "" {
		t.Errorf(`Link("nope") = %q, want ""`, got)
	}
	idx, err := Parse(strings.NewReader(readFixture(t, "change-list-index.xml")), "https://example.com/i.xml")
	if err != nil {
		t.Fatal(err)
	}
	if !idx.IsIndex() {
		t.Error("IsIndex() = false for a sitemapindex")
	}
}
