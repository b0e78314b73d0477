package sitemap

import (
	"bytes"
	"testing"

	"tidings/hints"
	"tidings/urls"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(urlset(entry("https://example.org/a", "2024-01-01"), entry("https://example.org/b#c", ""))))
	f.Add([]byte(`<sitemapindex ` + ns + `><sitemap><loc>https://example.org/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte(`<urlset><url><loc>x</loc><lastmod>2024</lastmod></url></urlset>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(bytes.NewReader(data), Options{Scope: "https://example.org/", MaxURLs: 100, MaxChildren: 10})
		if err != nil {
			return
		}
		if len(doc.URLs) > 100 || len(doc.Children) > 10 {
			t.Fatalf("caps broken: %d urls, %d children", len(doc.URLs), len(doc.Children))
		}
		for _, u := range doc.URLs {
			if len(u.Loc) > hints.MaxURLBytes || !urls.InScope(u.Loc, "https://example.org/") {
				t.Fatalf("kept %q", u.Loc)
			}
		}
	})
}
