package scpbridge

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The spec's example, with the extension bound to another prefix, a
// relative URL, and elements of a foreign namespace sharing local names.
const specSitemap = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:c="https://scp-protocol.org/schemas/sitemap/1.0"
        xmlns:other="https://example.net/not-scp">
  <c:version>0.1</c:version>
  <c:compression>zstd, gzip</c:compression>
  <c:section name="blog" updateFreq="daily" pages="~5000"/>
  <c:section name="docs" updateFreq="weekly" pages="~200"/>
  <c:section name="blog" updateFreq="hourly" pages="1"/>
  <other:section name="impostor" updateFreq="daily" pages="1"/>
  <other:collection section="blog" type="snapshot" url="https://evil.example/x.scp.gz" generated="2025-01-15T00:00:00Z"/>
  <c:collection section="blog" type="snapshot"
                url="https://r2.example.com/collections/blog-snapshot-2025-01-15.scp.gz"
                generated="2025-01-15T00:00:00Z" expires="2025-01-16T00:00:00Z"
                pages="5247" size="52000000"/>
  <c:delta section="blog" period="2025-01-15"
           url="/collections/blog-delta-2025-01-15.scp.zst"
           generated="2025-01-15T23:00:00Z" expires="2025-01-17T00:00:00Z"
           pages="47" size="480000" since="2025-01-14T00:00:00Z"/>
  <c:delta section="blog" period="x" url="javascript:alert(1)" generated="2025-01-15T23:00:00Z"/>
  <c:delta section="blog" period="y" url="/y.scp.gz"/>
  <c:collection section="docs" type="weird" url="/d.scp.gz" generated="2025-01-15T00:00:00Z"/>
  <c:delta section="docs" period="z" url="/z.scp.gz" generated="2025-01-15" pages="many"/>
  <url><loc>https://example.org/</loc></url>
</urlset>`

func TestParseSitemap(t *testing.T) {
	sm, err := ParseSitemap(strings.NewReader(specSitemap), "https://example.org/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	if sm.Root != "urlset" || sm.Version != "0.1" || strings.Join(sm.Compression, ",") != "zstd,gzip" || !sm.HasSCP() {
		t.Errorf("sitemap %+v", sm)
	}
	if len(sm.Sections) != 2 || sm.Sections[0] != (Section{"blog", "daily", "~5000"}) || sm.Sections[1].Name != "docs" {
		t.Errorf("sections %+v", sm.Sections)
	}
	if len(sm.Files) != 3 {
		t.Fatalf("files %+v", sm.Files)
	}
	snap, delta, docs := sm.Files[0], sm.Files[1], sm.Files[2]
	exp := time.Date(2025, 1, 16, 0, 0, 0, 0, time.UTC)
	if snap.Type != TypeSnapshot || snap.Section != "blog" || snap.Pages != 5247 || snap.Size != 52000000 ||
		snap.Expires == nil || !snap.Expires.Equal(exp) || snap.Since != nil ||
		!snap.Generated.Equal(time.Date(2025, 1, 15, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("snapshot %+v", snap)
	}
	if delta.Type != TypeDelta || delta.Period != "2025-01-15" || delta.URL != "https://example.org/collections/blog-delta-2025-01-15.scp.zst" ||
		delta.Since == nil || !delta.Since.Equal(time.Date(2025, 1, 14, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("delta %+v", delta)
	}
	if docs.Section != "docs" || docs.Pages != -1 || docs.Size != -1 {
		t.Errorf("docs delta %+v", docs)
	}
	// javascript: URL, no generated, unknown type, bad pages count.
	if len(sm.Warnings) != 4 {
		t.Errorf("warnings %q", sm.Warnings)
	}
}

func TestParseSitemapIndexAndPlain(t *testing.T) {
	idx := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc> /sitemap-1.xml </loc></sitemap><sitemap><loc>https://example.org/sitemap-2.xml.gz</loc></sitemap>
<sitemap><loc>ftp://example.org/x</loc></sitemap></sitemapindex>`
	sm, err := ParseSitemap(strings.NewReader("\ufeff"+idx), "https://example.org/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	if sm.Root != "sitemapindex" || sm.HasSCP() || len(sm.Sitemaps) != 2 || sm.Sitemaps[0] != "https://example.org/sitemap-1.xml" {
		t.Errorf("index %+v", sm)
	}
	plain := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/</loc></url></urlset>`
	if sm, err := ParseSitemap(strings.NewReader(plain), "https://example.org/sitemap.xml"); err != nil || sm.HasSCP() || len(sm.Sitemaps) != 0 {
		t.Errorf("plain sitemap: %+v %v", sm, err)
	}
	latin1 := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset xmlns:s=\"" + Namespace + "\"><s:section name=\"caf\xe9\" updateFreq=\"daily\" pages=\"1\"/></urlset>"
	if sm, err := ParseSitemap(strings.NewReader(latin1), "https://example.org/sitemap.xml"); err != nil || len(sm.Sections) != 1 || sm.Sections[0].Name != "café" {
		t.Errorf("latin-1 sitemap: %+v %v", sm, err)
	}
	for _, bad := range []string{"", "<html><body/></html>", "<urlset><unclosed></urlset>", "not xml"} {
		if _, err := ParseSitemap(strings.NewReader(bad), "https://example.org/sitemap.xml"); !errors.Is(err, ErrNotSitemap) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}
