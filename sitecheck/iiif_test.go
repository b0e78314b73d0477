package sitecheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheckExplainsABrokenIIIFStream: a site whose home page links an
// IIIF Change Discovery stream, whose newest page answers 404, or which
// names no last page, or which is not JSON: the check says so in the
// owner's words, with the fix the IIIF source gives.
func TestCheckExplainsABrokenIIIFStream(t *testing.T) {
	cases := []struct {
		name, stream, want, fix string
	}{
		{"a page that 404s", `{"@context":"http://iiif.io/api/discovery/1/context.json","id":"{root}/activity/all","type":"OrderedCollection",
			"last":{"id":"{root}/activity/page-9","type":"OrderedCollectionPage"}}`,
			"answers 404 Not Found", "Serve every page the collection's last"},
		{"no last", `{"@context":"http://iiif.io/api/discovery/1/context.json","id":"{root}/activity/all","type":"OrderedCollection"}`,
			"names no last page", `Give the OrderedCollection a "last"`},
		{"not JSON", `<html><body>Sign in</body></html>`, "is not JSON", "Serve the stream's documents as JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var root string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/":
					w.Header().Set("Content-Type", "text/html")
					w.Write([]byte(`<!doctype html><html><head><title>Museum</title><link rel="alternate" type="application/ld+json;profile=&quot;http://iiif.io/api/discovery/1/context.json&quot;" href="/activity/all"></head><body><p>Our collection.</p></body></html>`))
				case "/activity/all":
					w.Header().Set("Content-Type", "application/ld+json")
					w.Write([]byte(strings.ReplaceAll(tc.stream, "{root}", root)))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			root = srv.URL
			_, h := checkHarvester(t)
			rep := runCheck(t, h, srv.URL+"/")
			var said []string
			for _, p := range rep.Problems {
				said = append(said, p.Problem+" / "+p.Fix)
				if strings.Contains(p.Problem, tc.want) && strings.Contains(p.Fix, tc.fix) {
					return
				}
			}
			t.Errorf("no problem saying %q with the fix %q among:\n%s", tc.want, tc.fix, strings.Join(said, "\n"))
		})
	}
}
