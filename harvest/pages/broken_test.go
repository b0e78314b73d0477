package pages

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tidings/harvest"
	"tidings/internal/harvesttest"
	"tidings/source"
)

// TestBrokenPreciseSourceIsNamed: a site whose ARC sitemap is malformed
// JSON is watched as pages, which is right, and its harvest names the
// document and its error, where before it said the site publishes no
// change information.
func TestBrokenPreciseSourceIsNamed(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/arc-sitemap.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{\n  \"arc_sitemap_version\": \"2.1\",\n  \"pages\": [\n    {\"url\": \"x\",}\n  ]\n}\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>Heron Shrine</title><p>Herons.</p><a href="/a.html">a</a>`)
		case "/a.html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<title>A</title><p>Page a.</p>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	_, h := harvesttest.New(t, harvest.Options{})
	rep := harvesttest.Follow(t, h, site.URL+"/")
	if len(rep.Collections) != 1 || rep.Collections[0].Collection.Protocol != Name {
		t.Fatalf("collections %+v", rep.Collections)
	}
	w := strings.Join(rep.Run.Warnings, "\n")
	if !strings.Contains(w, "the ARC sitemap "+site.URL+"/.well-known/arc-sitemap.json is not valid") || !strings.Contains(w, "line 4") {
		t.Errorf("the site's run says %q; want the broken ARC sitemap named with its error", w)
	}
	c := rep.Collections[0].Collection
	if d := source.Describe(c.Protocol, c.Watched); strings.Contains(d, "publishes no change information") {
		t.Errorf("the collection says %q of a site whose change information could not be read", d)
	}
}
