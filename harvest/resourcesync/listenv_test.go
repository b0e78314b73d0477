package resourcesync_test

import (
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/internal/sitemapsite"
)

// rsXMLNS binds the namespaces of a ResourceSync document.
const rsXMLNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`

// newListEnv is a ListEnv whose site the test makes publish resource
// lists.
func newListEnv(t *testing.T) *harvesttest.ListEnv {
	t.Helper()
	return harvesttest.NewListEnv(t, harvest.Options{})
}

// shrine is version 1 of a small generated site: every page lists every
// other in its navigation.
func shrine() map[string]sitemapsite.Page {
	return map[string]sitemapsite.Page{
		"/":   {Title: "The Shrine", Text: "Welcome to my shrine to moths.\nPlease sign the guestbook."},
		"/a/": {Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about a week."},
		"/b/": {Title: "Atlas moth", Text: "The atlas moth is one of the largest moths."},
		"/c/": {Title: "Links", Text: "Other moth shrines I like."},
		"/d/": {Title: "Old news", Text: "This page will go away."},
	}
}

// shrine2 is version 2: /a/ was edited, /d/ removed, /e/ added; /b/ and
// /c/ differ only in their navigation and footer, like every page.
func shrine2() map[string]sitemapsite.Page {
	v := shrine()
	v["/a/"] = sitemapsite.Page{Title: "Luna moth", Text: "The luna moth is pale green.\nIt lives for about ten days."}
	delete(v, "/d/")
	v["/e/"] = sitemapsite.Page{Title: "Guestbook", Text: "Thank you for visiting."}
	return v
}
