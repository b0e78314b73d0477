package worker

import (
	"encoding/base64"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"

	// Every source adapter, whichever the site uses.
	_ "tidings/harvest/sources"
)

// changingSite is a ResourceSync site of pages whose text is rewritten
// whole at every round: its change list names every page updated then.
type changingSite struct {
	srv *httptest.Server

	mu    sync.Mutex
	pages int
	size  int  // bytes of text a page
	dense bool // text that compresses little (base64), not prose
	// part, when set, rewrites one block of ten lines in part at each
	// round (block b with (round+b) % part == 0), the others kept: a page
	// that changes in part, not whole.
	part   int
	rounds []time.Time // when each round rewrote the pages
}

func newChangingSite(t testing.TB, pages, size int, dense bool) *changingSite {
	t.Helper()
	s := &changingSite{pages: pages, size: size, dense: dense}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the site's root.
func (s *changingSite) URL() string { return s.srv.URL + "/" }

// rewrite rewrites every page, at at.
func (s *changingSite) rewrite(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rounds = append(s.rounds, at)
}

const rsNS = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`

func (s *changingSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := s.srv.URL
	xml := func(body string) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<urlset "+rsNS+">"+body+"</urlset>")
	}
	switch p := r.URL.Path; {
	case p == "/.well-known/resourcesync":
		xml(`<rs:md capability="description"/><url><loc>` + base + `/caps.xml</loc><rs:md capability="capabilitylist"/></url>`)
	case p == "/caps.xml":
		xml(`<rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + base + `/"/>` +
			`<url><loc>` + base + `/changes.xml</loc><rs:md capability="changelist"/></url>`)
	case p == "/changes.xml":
		var sb strings.Builder
		sb.WriteString(`<rs:md capability="changelist"/>`)
		for k, at := range s.rounds {
			kind := "updated"
			if k == 0 {
				kind = "created"
			}
			for i := range s.pages {
				fmt.Fprintf(&sb, `<url><loc>%s/p/%d</loc><rs:md change="%s" datetime="%s"/></url>`, base, i, kind, at.UTC().Format(time.RFC3339))
			}
		}
		xml(sb.String())
	case strings.HasPrefix(p, "/p/") && len(s.rounds) > 0:
		var i int
		if _, err := fmt.Sscanf(p, "/p/%d", &i); err != nil || i < 0 || i >= s.pages {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, s.page(i, len(s.rounds)))
	default:
		http.NotFound(w, r)
	}
}

// page is page i as round k wrote it: paragraphs of words, or of
// base64 when dense, drawn anew each round (or, with part, one in part).
func (s *changingSite) page(i, k int) string {
	r := rand.New(rand.NewPCG(uint64(i), uint64(k)))
	words := strings.Fields("the a site page shrine gallery update new old cat moon river stone light wind paper letter art " +
		"garden window travel music night morning story friend colour winter summer")
	var sb strings.Builder
	fmt.Fprintf(&sb, "<!doctype html><html><head><title>Page %d</title></head><body><main><h1>Page %d</h1>\n", i, i)
	for n, j := 0, 0; n < s.size; j++ {
		if s.part > 0 {
			// Each line drawn from its own seed and version, so that
			// the lines not due keep their words.
			r = rand.New(rand.NewPCG(uint64(i)<<32|uint64(j), uint64((k+j/10)/s.part)))
		}
		var line string
		if s.dense {
			b := make([]byte, 57)
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			line = base64.StdEncoding.EncodeToString(b)
		} else {
			ws := make([]string, 14)
			for j := range ws {
				ws[j] = words[r.IntN(len(words))]
			}
			line = strings.Join(ws, " ") + fmt.Sprintf(" %d.", r.IntN(10000))
		}
		sb.WriteString("<p>" + html.EscapeString(line) + "</p>\n")
		n += len(line) + 1
	}
	sb.WriteString("</main></body></html>")
	return sb.String()
}

// changingHarvester is a harvester over a new database file whose clock
// is *now, which reads every page of a site at each harvest.
func changingHarvester(t testing.TB, now *time.Time, pages int) (*db.DB, *harvest.Harvester, string) {
	t.Helper()
	path := t.TempDir() + "/tidings.db"
	store, err := db.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	h := harvest.New(client, store, harvest.Options{
		Now:       func() time.Time { return *now },
		Snapshots: harvest.SnapshotSettings{PageFetches: pages},
		// Each round is a day: the first harvest's window takes it whole.
		InitialWindow: 48 * time.Hour,
	})
	return store, h, path
}
