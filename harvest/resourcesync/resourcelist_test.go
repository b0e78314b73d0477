package resourcesync_test

import (
	"slices"
	"strings"
	"testing"

	"tidings/harvest/resourcesync"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// publishResourceList makes the fixture site publish a capability list
// that offers a resource list and no change list; entries are the
// resource list's <url> elements.
func publishResourceList(s *sitemapsite.Site, entries ...string) {
	s.Raw("/.well-known/resourcesync", `<urlset `+rsXMLNS+`><rs:md capability="description"/>
<url><loc>{root}/caps.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`)
	s.Raw("/caps.xml", `<urlset `+rsXMLNS+`><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{root}/"/>
<url><loc>{root}/resources.xml</loc><rs:md capability="resourcelist"/></url></urlset>`)
	s.Raw("/resources.xml", `<urlset `+rsXMLNS+`><rs:md capability="resourcelist" at="2026-11-01T00:00:00Z"/>`+strings.Join(entries, "")+`</urlset>`)
}

func resource(path, hash string) string {
	return `<url><loc>{root}` + path + `</loc><rs:md hash="md5:` + hash + `" length="10"/></url>`
}

// TestResourceListCompared: a ResourceSync source with a resource list
// and no change list is followed by comparing successive resource lists:
// a resource that appears is created, one whose hash moved is updated
// when its text changed, one that left the list and answers 404 is
// deleted.
func TestResourceListCompared(t *testing.T) {
	e := newListEnv(t)
	v := shrine()
	e.Site.Sitemap("/no-sitemap.xml", false)
	e.Site.Version("", v)
	publishResourceList(e.Site, resource("/a/", "1"), resource("/b/", "2"), resource("/d/", "3"))
	rep := harvesttest.Follow(t, e.H, e.Site.URL("/"))
	if got := harvesttest.ActiveSources(t, e.Store); !slices.Equal(got, []string{resourcesync.Name}) {
		t.Fatalf("followed by %v", got)
	}
	if got := e.Changes(); len(got) != 0 {
		t.Errorf("the first harvest recorded %v; warnings %q", got, harvesttest.Warnings(rep))
	}
	v2 := shrine2()
	e.Site.Version("", v2)
	// /a/'s text changed and its hash with it; /b/'s hash moved with no
	// change of text (a rebuild); /d/ left; /e/ came.
	publishResourceList(e.Site, resource("/a/", "1a"), resource("/b/", "2a"), resource("/e/", "5"))
	rep = e.Harvest()
	want := []string{"created /e/", "deleted /d/", "updated /a/"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v; warnings %q", got, want, harvesttest.Warnings(rep))
	}
}

// TestResourceListThenChangeLists: a site that published a resource list
// adds a change list, which names a deletion the comparison of resource
// lists already recorded (dated when the harvest saw it), and an edit
// after it. The deletion is recorded once; the edit is taken.
func TestResourceListThenChangeLists(t *testing.T) {
	e := newListEnv(t)
	v := shrine()
	e.Site.Sitemap("/no-sitemap.xml", false)
	e.Site.Version("", v)
	publishResourceList(e.Site, resource("/a/", "1"), resource("/b/", "2"), resource("/d/", "3"))
	harvesttest.Follow(t, e.H, e.Site.URL("/"))
	v2 := shrine2()
	e.Site.Version("", v2)
	publishResourceList(e.Site, resource("/a/", "1"), resource("/b/", "2"), resource("/e/", "5"))
	e.Harvest()
	// /a/'s text changed under an unmoved hash: read again, it is news.
	if got := e.Changes(); !slices.Equal(got, []string{"created /e/", "deleted /d/", "updated /a/"}) {
		t.Fatalf("the resource lists compared: %v", got)
	}

	e.Site.Raw("/caps.xml", `<urlset `+rsXMLNS+`><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="{root}/"/>
<url><loc>{root}/resources.xml</loc><rs:md capability="resourcelist"/></url>
<url><loc>{root}/changes.xml</loc><rs:md capability="changelist"/></url></urlset>`)
	e.Site.Raw("/changes.xml", `<urlset `+rsXMLNS+`><rs:md capability="changelist" from="2026-11-21T00:00:00Z"/>
<url><loc>{root}/d/</loc><rs:md change="deleted" datetime="2026-11-21T09:00:00Z"/></url>
<url><loc>{root}/e/</loc><rs:md change="updated" datetime="2026-11-22T08:00:00Z"/></url></urlset>`)
	rep := e.Harvest()
	want := []string{"created /e/", "deleted /d/", "updated /a/", "updated /e/"}
	if got := e.Changes(); !slices.Equal(got, want) {
		t.Errorf("changes %v, want %v, /d/ deleted once; warnings %q", got, want, harvesttest.Warnings(rep))
	}
}
