package hints

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestRobotsSitemaps(t *testing.T) {
	const base = "https://example.org/robots.txt"
	tests := []struct {
		name string
		in   string
		base string
		want []string
	}{
		{"none", "User-agent: *\nDisallow: /private\n", base, nil},
		{"empty", "", base, nil},
		{"one", "User-agent: *\nSitemap: https://example.org/sitemap.xml\n", base,
			[]string{"https://example.org/sitemap.xml"}},
		{"field case and spacing", "SITEMAP:https://example.org/a.xml\n  sitemap  :  https://example.org/b.xml  \nSiteMap:\thttps://example.org/c.xml", base,
			[]string{"https://example.org/a.xml", "https://example.org/b.xml", "https://example.org/c.xml"}},
		{"CRLF and comments", "# our robots\r\nSitemap: https://example.org/a.xml # main\r\n#Sitemap: https://example.org/old.xml\r\n", base,
			[]string{"https://example.org/a.xml"}},
		{"relative resolved", "Sitemap: /.well-known/resourcesync\nSitemap: maps/b.xml\n", "https://example.org/dir/robots.txt",
			[]string{"https://example.org/.well-known/resourcesync", "https://example.org/dir/maps/b.xml"}},
		{"relative without base dropped", "Sitemap: /a.xml\nSitemap: https://example.org/b.xml\n", "",
			[]string{"https://example.org/b.xml"}},
		{"duplicates removed, order kept", "Sitemap: https://example.org/b.xml\nSitemap: https://example.org/a.xml\nSitemap: https://example.org/b.xml\n", base,
			[]string{"https://example.org/b.xml", "https://example.org/a.xml"}},
		{"non-http and empty dropped", "Sitemap:\nSitemap: ftp://example.org/a.xml\nSitemap: javascript:alert(1)\nSitemap: http://[::1\nSitemap: http:///nohost\n", base, nil},
		{"other fields ignored", "Sitemaps: https://example.org/x.xml\nSite-map: https://example.org/y.xml\nAllow: /sitemap: no\n", base, nil},
		{"BOM", "\ufeffSitemap: https://example.org/a.xml\n", base, []string{"https://example.org/a.xml"}},
		{"http kept", "Sitemap: http://example.org/a.xml", base, []string{"http://example.org/a.xml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RobotsSitemaps(strings.NewReader(tt.in), tt.base)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RobotsSitemaps = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRobotsSitemapsLimits(t *testing.T) {
	t.Run("URL count", func(t *testing.T) {
		var b strings.Builder
		for i := range MaxHintURLs + 50 {
			fmt.Fprintf(&b, "Sitemap: https://example.org/%d.xml\n", i)
		}
		got := RobotsSitemaps(strings.NewReader(b.String()), "")
		if len(got) != MaxHintURLs {
			t.Errorf("got %d URLs, want %d", len(got), MaxHintURLs)
		}
	})
	t.Run("bytes read", func(t *testing.T) {
		padding := strings.Repeat("# padding\n", MaxRobotsBytes/10+1)
		in := padding + "Sitemap: https://example.org/late.xml\n"
		if got := RobotsSitemaps(strings.NewReader(in), ""); got != nil {
			t.Errorf("read past the cap: %q", got)
		}
	})
	t.Run("one huge line", func(t *testing.T) {
		in := "Sitemap: https://example.org/a.xml\n" + strings.Repeat("x", 2*MaxRobotsBytes)
		got := RobotsSitemaps(strings.NewReader(in), "")
		if want := []string{"https://example.org/a.xml"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}
