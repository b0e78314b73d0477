package hints

import (
	"fmt"
	"io"
	"reflect"
	"runtime"
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
	t.Run("URL length", func(t *testing.T) {
		long := "https://example.org/" + strings.Repeat("a", MaxURLBytes)
		cut := "https://example.org/" + strings.Repeat("b", MaxRobotsLine)
		in := "Sitemap: " + long + "\nSitemap: " + cut + "\nSitemap: https://example.org/c.xml\n"
		got := RobotsSitemaps(strings.NewReader(in), "")
		if want := []string{"https://example.org/c.xml"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %d URLs of %v bytes, want %q", len(got), urlLengths(got), want)
		}
	})
	t.Run("a line longer than the file's cap", func(t *testing.T) {
		in := "Sitemap: https://example.org/a.xml # " + strings.Repeat("x", 2*MaxRobotsBytes)
		got := RobotsSitemaps(strings.NewReader(in), "")
		if want := []string{"https://example.org/a.xml"}; !reflect.DeepEqual(got, want) {
			t.Errorf("got %q, want %q", got, want)
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

func urlLengths(urls []string) []int {
	var n []int
	for _, u := range urls {
		n = append(n, len(u))
	}
	return n
}

// TestRobotsSitemapsMemory: a robots.txt of one line as long as the cap is
// read a line's worth at a time, not held (it was 1.55 MB allocated).
func TestRobotsSitemapsMemory(t *testing.T) {
	in := io.MultiReader(strings.NewReader("Sitemap: https://example.org/a.xml # "), &repeated{'x', 36_000_000})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := RobotsSitemaps(in, "")
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 || len(got) != 1 {
		t.Errorf("read %q allocating %d bytes; want one URL and under 64 KiB", got, alloc)
	}
}
