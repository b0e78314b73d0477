package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMix(t *testing.T) {
	m, err := parseMix("resourcesync=1, sitemap=2,pages")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	var js []int
	for i := range 8 {
		k, j := m.kindOf(i)
		kinds = append(kinds, k)
		js = append(js, j)
	}
	wantKinds := []Kind{KindResourceSync, KindSitemap, KindSitemap, KindPages, KindResourceSync, KindSitemap, KindSitemap, KindPages}
	if !slices.Equal(kinds, wantKinds) || !slices.Equal(js, []int{0, 0, 1, 0, 1, 2, 3, 1}) {
		t.Errorf("kinds %v, indexes %v", kinds, js)
	}
	if k, j := Mix(nil).kindOf(5); k != KindResourceSync || j != 5 {
		t.Errorf("the zero Mix made site 5 %s %d", k, j)
	}
	if !Mix(nil).pureResourceSync() || m.pureResourceSync() {
		t.Error("pureResourceSync")
	}
	for _, bad := range []string{"", "ftp", "sitemap=x", "sitemap=-1", "pages,pages", "pages=0"} {
		if _, err := parseMix(bad); err == nil {
			t.Errorf("--kinds %q was accepted", bad)
		}
	}
}

func TestLacksValidators(t *testing.T) {
	for _, tt := range []struct {
		fraction float64
		want     int
	}{{0, 0}, {0.1, 10}, {0.25, 25}, {1, 100}} {
		n := 0
		for j := range 100 {
			if lacksValidators(j, tt.fraction) {
				n++
			}
		}
		if n != tt.want {
			t.Errorf("fraction %g: %d of 100 sites lack validators, want %d", tt.fraction, n, tt.want)
		}
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

// TestPlainSiteLinks crawls rendered sites as a harvester would: every
// page is reached from the home page in at most three links, through
// same-origin links only, and every page shares the navigation and the
// footer.
func TestPlainSiteLinks(t *testing.T) {
	const base = "http://127.0.0.1:1"
	tests := []struct {
		n     int
		scope string
	}{{30, "/"}, {31, "/"}, {47, "/project/"}, {115, "/"}, {200, "/docs/"}}
	// Some sizes leave no room for a listing page and its article, and
	// end with a contact page instead, linked from the footer.
	for n := 30; n <= 300; n++ {
		if _, ok := newPlainSite(1, n, n, "/").byPath["/contact/"]; ok {
			tests = append(tests, struct {
				n     int
				scope string
			}{n, "/"})
			break
		}
	}
	if len(tests) == 5 {
		t.Error("no size from 30 to 300 pages ends with a contact page")
	}
	for _, tt := range tests {
		ps := newPlainSite(1, tt.n, tt.n, tt.scope)
		if len(ps.pages) != tt.n || len(ps.byPath) != tt.n {
			t.Errorf("%d pages asked: %d made, %d paths", tt.n, len(ps.pages), len(ps.byPath))
			continue
		}
		depth := map[string]int{tt.scope: 0}
		queue := []string{tt.scope}
		var nav string
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			body := string(ps.pageBody(1, tt.n, ps.byPath[p], 0, base, 2026))
			head, _, _ := strings.Cut(body, "<main")
			if _, h, _ := strings.Cut(head, "<header"); nav == "" {
				nav = h
			} else if h != nav {
				t.Errorf("%s: its header differs from the home page's", p)
			}
			if !strings.Contains(body, "© 2026 "+ps.name+".") {
				t.Errorf("%s: no © footer", p)
			}
			from, _ := url.Parse(base + p)
			for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
				u, err := from.Parse(m[1])
				if err != nil {
					t.Fatalf("%s: link %q: %v", p, m[1], err)
				}
				if u.Scheme == "mailto" {
					continue
				}
				if u.Scheme+"://"+u.Host != base {
					t.Errorf("%s links to %s, off the site", p, u)
				}
				if _, ok := ps.byPath[u.Path]; !ok {
					if u.Path != tt.scope+"assets/site.css" {
						t.Errorf("%s links to %s, which is no page", p, u.Path)
					}
					continue
				}
				if _, seen := depth[u.Path]; !seen {
					depth[u.Path] = depth[p] + 1
					queue = append(queue, u.Path)
				}
			}
		}
		deepest := 0
		for _, d := range depth {
			deepest = max(deepest, d)
		}
		if len(depth) != tt.n || deepest > 3 {
			t.Errorf("%d pages: %d reached from the home page, the farthest %d links away", tt.n, len(depth), deepest)
		}
	}
}

// get asks for u with the header h (name, value pairs).
func get(t *testing.T, u string, h ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k+1 < len(h); k += 2 {
		req.Header.Set(h[k], h[k+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

var locRE = regexp.MustCompile(`<loc>([^<]*)</loc>(?:\s*<lastmod>([^<]*)</lastmod>)?`)

// sitemapOf finds a sitemap site's sitemap as its variant publishes it,
// and returns its URLs and lastmods.
func sitemapOf(t *testing.T, f *Fleet, i int) (locs, lastmods []string) {
	t.Helper()
	s := f.sites[i]
	v := s.plain.variant
	_, robots := get(t, s.base+"/robots.txt")
	u := s.base + v.scope + "sitemap.xml"
	if v.robots {
		_, line, ok := strings.Cut(string(robots), "Sitemap: ")
		if !ok {
			t.Fatalf("%s: robots.txt names no sitemap:\n%s", v.name, robots)
		}
		u = strings.TrimSpace(line)
	} else if strings.Contains(string(robots), "Sitemap:") {
		t.Errorf("%s: robots.txt names a sitemap", v.name)
	}
	resp, body := get(t, u)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %s: %d", v.name, u, resp.StatusCode)
	}
	if v.index {
		m := locRE.FindStringSubmatch(string(body))
		resp, body = get(t, m[1])
		if resp.Header.Get("Content-Type") != "application/gzip" {
			t.Errorf("%s: %s is %s", v.name, m[1], resp.Header.Get("Content-Type"))
		}
		body = gunzip(t, body)
	}
	if v.gzipTwin {
		if _, gz := get(t, u+".gz"); !bytes.Equal(gunzip(t, gz), body) {
			t.Errorf("%s: sitemap.xml.gz is not sitemap.xml gzipped", v.name)
		}
	}
	for _, m := range locRE.FindAllStringSubmatch(string(body), -1) {
		locs = append(locs, m[1])
		lastmods = append(lastmods, m[2])
	}
	return locs, lastmods
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func plainFleet(t *testing.T, n int, kinds string, noValidators float64) *Fleet {
	t.Helper()
	mix, err := parseMix(kinds)
	if err != nil {
		t.Fatal(err)
	}
	sh := Shape{Collections: 1, Lists: 1, Entries: 10, Mix: mix, MinPages: 30, MaxPages: 200, NoValidators: noValidators}
	f, err := StartFleet(1, n, sh, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

// TestSitemapVariants reads every variant's sitemap where it says it is,
// then revises the fleet: a build-stamped sitemap moves every lastmod,
// an honest one those of the revised pages only.
func TestSitemapVariants(t *testing.T) {
	f := plainFleet(t, len(sitemapVariants), "sitemap", 0)
	before := make([][]string, len(f.sites))
	for i, s := range f.sites {
		v := s.plain.variant
		if v != sitemapVariants[i] {
			t.Fatalf("site %d is %s, want %s", i, v.name, sitemapVariants[i].name)
		}
		locs, lastmods := sitemapOf(t, f, i)
		if len(locs) != len(s.plain.pages) {
			t.Errorf("%s: sitemap lists %d of %d pages", v.name, len(locs), len(s.plain.pages))
		}
		for _, l := range locs {
			if !strings.HasPrefix(l, s.base+v.scope) {
				t.Errorf("%s: %s is outside %s", v.name, l, v.scope)
			}
		}
		switch v.stamp {
		case stampNone:
			if slices.ContainsFunc(lastmods, func(s string) bool { return s != "" }) {
				t.Errorf("%s: dated %v", v.name, lastmods)
			}
		case stampPosts:
			if n := len(slices.DeleteFunc(slices.Clone(lastmods), func(s string) bool { return s == "" })); n == 0 || n == len(lastmods) {
				t.Errorf("%s: %d of %d URLs dated, want the posts only", v.name, n, len(lastmods))
			}
		default:
			if slices.Contains(lastmods, "") {
				t.Errorf("%s: a URL without lastmod", v.name)
			}
		}
		_, home := get(t, s.base+v.scope)
		// The first article is not among the home page's recent ones.
		if first := s.plain.pages[s.plain.arts[0]].path; strings.Contains(string(home), `href="`+first+`"`) != v.fullNav {
			t.Errorf("%s: the home page links to the first article, %s: %v", v.name, first, !v.fullNav)
		}
		if v.scope != "/" {
			if resp, _ := get(t, s.base+"/sitemap.xml"); resp.StatusCode != 404 {
				t.Errorf("%s: /sitemap.xml: %d", v.name, resp.StatusCode)
			}
		}
		before[i] = lastmods
	}
	revised := f.Revise(0.02)
	want := 0
	for i, s := range f.sites {
		want += int(float64(len(s.plain.pages))*0.02 + 0.5)
		locs, lastmods := sitemapOf(t, f, i)
		moved := 0
		for k := range lastmods {
			if lastmods[k] != before[i][k] {
				moved++
				x := s.plain.byPath[strings.TrimPrefix(locs[k], s.base)]
				if s.plain.variant.stamp != stampBuild && s.plain.versions[x] == 0 {
					t.Errorf("%s: %s moved, not revised", s.plain.variant.name, locs[k])
				}
			}
		}
		switch s.plain.variant.stamp {
		case stampBuild:
			if moved != len(locs) {
				t.Errorf("%s: %d of %d lastmods moved; a build moves them all", s.plain.variant.name, moved, len(locs))
			}
		case stampOwn:
			if moved != int(float64(len(s.plain.pages))*0.02+0.5) {
				t.Errorf("%s: %d lastmods moved", s.plain.variant.name, moved)
			}
		}
	}
	if revised != want {
		t.Errorf("revise 0.02 changed %d pages, want %d", revised, want)
	}
	urls := f.Revised()
	if len(urls) != revised {
		t.Fatalf("%d URLs of %d revised pages", len(urls), revised)
	}
	for _, u := range urls {
		resp, _ := get(t, u)
		if resp.StatusCode != 200 || !strings.HasSuffix(resp.Header.Get("ETag"), `-1"`) {
			t.Errorf("revised page %s: %d, ETag %s", u, resp.StatusCode, resp.Header.Get("ETag"))
		}
	}
}

// TestPlainPagesConditional asks a page as a harvester does, then again
// with its validators, before and after a revision, on a server with
// validators and one without.
func TestPlainPagesConditional(t *testing.T) {
	f := plainFleet(t, 2, "pages", 0.5)
	withV, without := f.sites[0], f.sites[1]
	if !withV.plain.validators || without.plain.validators {
		t.Fatalf("validators: %v, %v", withV.plain.validators, without.plain.validators)
	}
	if resp, _ := get(t, withV.base+"/sitemap.xml"); resp.StatusCode != 404 {
		t.Errorf("a pages site answered /sitemap.xml with %d", resp.StatusCode)
	}
	arts := withV.plain.articles()
	page := withV.base + withV.plain.pages[arts[0]].path
	resp, body := get(t, page)
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.StatusCode != 200 || etag == "" || lm == "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%s: %d, ETag %q, Last-Modified %q", page, resp.StatusCode, etag, lm)
	}
	if resp, _ := get(t, strings.TrimSuffix(page, "/")); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != strings.TrimPrefix(page, withV.base) {
		t.Errorf("without its slash: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, h := range [][2]string{{"If-None-Match", etag}, {"If-Modified-Since", lm}} {
		if resp, _ := get(t, page, h[0], h[1]); resp.StatusCode != http.StatusNotModified {
			t.Errorf("with %s: %d", h[0], resp.StatusCode)
		}
	}
	for _, p := range []string{"/robots.txt", "/assets/site.css"} {
		resp, _ := get(t, withV.base+p)
		if r2, _ := get(t, withV.base+p, "If-None-Match", resp.Header.Get("ETag")); r2.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: %d", p, r2.StatusCode)
		}
	}
	// Revise every article, so that this one changes.
	f.revisePlain(withV, 0, 1)
	resp, after := get(t, page, "If-None-Match", etag)
	if resp.StatusCode != 200 || resp.Header.Get("ETag") == etag || resp.Header.Get("Last-Modified") == lm {
		t.Errorf("revised: %d, ETag %q, Last-Modified %q", resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"))
	}
	if resp, _ := get(t, page, "If-Modified-Since", lm); resp.StatusCode != 200 {
		t.Errorf("revised, with the old Last-Modified: %d", resp.StatusCode)
	}
	a, b := paraRE2.FindAllString(string(body), -1), paraRE2.FindAllString(string(after), -1)
	changed := 0
	for k := range min(len(a), len(b)) {
		if a[k] != b[k] {
			changed++
		}
	}
	if len(a) != len(b) || changed != revisedParas {
		t.Errorf("a revision changed %d of %d paragraphs (now %d), want %d", changed, len(a), len(b), revisedParas)
	}

	page = without.base + without.plain.pages[0].path
	resp, _ = get(t, page)
	if resp.Header.Get("ETag") != "" || resp.Header.Get("Last-Modified") != "" {
		t.Errorf("a server without validators sent ETag %q, Last-Modified %q", resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"))
	}
	if resp, _ := get(t, page, "If-Modified-Since", time.Now().UTC().Format(http.TimeFormat), "If-None-Match", `"x"`); resp.StatusCode != 200 {
		t.Errorf("without validators, asked conditionally: %d", resp.StatusCode)
	}
	if resp, _ := get(t, without.base+"/robots.txt", "If-Modified-Since", time.Now().UTC().Format(http.TimeFormat)); resp.StatusCode != 200 || resp.Header.Get("Last-Modified") != "" {
		t.Errorf("robots.txt without validators: %d, Last-Modified %q", resp.StatusCode, resp.Header.Get("Last-Modified"))
	}
}

var paraRE2 = regexp.MustCompile(`<p>[^<]*</p>`)

// TestKindStats counts requests by kind of site: conditional ones, 304s,
// pages and sitemaps, and servers without validators apart.
func TestKindStats(t *testing.T) {
	f := plainFleet(t, 4, "resourcesync=1,sitemap=1,pages=2", 0.5)
	lines := f.Lines()
	for i, want := range []string{" resourcesync - validators 0", " sitemap mkdocs validators ", " pages - validators ", " pages - no-validators "} {
		if !strings.Contains(lines[i], want) || !strings.HasPrefix(lines[i], f.URLs()[i]+" ") {
			t.Errorf("line %d: %q, want it to contain %q", i, lines[i], want)
		}
	}
	sm, pg, nv := f.sites[1], f.sites[2], f.sites[3]
	resp, _ := get(t, sm.base+"/sitemap.xml")
	get(t, sm.base+"/sitemap.xml", "If-None-Match", resp.Header.Get("ETag"))
	get(t, sm.base+"/sitemap.xml.gz")
	resp, _ = get(t, pg.base+"/")
	get(t, pg.base+"/", "If-Modified-Since", resp.Header.Get("Last-Modified"))
	get(t, nv.base+"/", "If-Modified-Since", resp.Header.Get("Last-Modified"))
	get(t, f.sites[0].base+"/robots.txt")
	var st Stats
	for deadline := time.Now().Add(5 * time.Second); st.Requests < 7 && time.Now().Before(deadline); st = f.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	want := map[string]KindStats{
		"resourcesync":       {Requests: 1},
		"sitemap":            {Requests: 3, Conditional: 1, NotModified: 1, Sitemaps: 3},
		"pages":              {Requests: 2, Conditional: 1, NotModified: 1, Pages: 2},
		"pages-novalidators": {Requests: 1, Conditional: 1, Pages: 1},
	}
	for k, w := range want {
		got := st.Kinds[k]
		got.Bytes = 0
		if got != w {
			t.Errorf("%s: %+v, want %+v", k, got, w)
		}
	}
	if st.Requests != 7 || st.Conditional != 3 || st.NotModified != 2 || st.Pages != 3 || len(st.Kinds) != 4 {
		t.Errorf("stats %+v", st)
	}
	f.Reset()
	if st := f.Stats(); st.Requests != 0 || len(st.Kinds) != 0 {
		t.Errorf("after reset: %+v", st)
	}
}

// TestMutatePlain: a mutation edits one article of each site it picks,
// and is no revise cycle.
func TestMutatePlain(t *testing.T) {
	f := plainFleet(t, 4, "sitemap=1,pages=1", 0)
	changed := f.Mutate(0.5)
	for i, s := range f.sites {
		edits := 0
		for _, v := range s.plain.versions {
			edits += v
		}
		if want := min(1, len(slices.DeleteFunc(slices.Clone(changed), func(c int) bool { return c != i }))); edits != want {
			t.Errorf("site %d: %d pages edited, want %d", i, edits, want)
		}
	}
	if len(changed) != 2 || len(f.Revised()) != 0 {
		t.Errorf("mutate changed %v; revised %v", changed, f.Revised())
	}
}
