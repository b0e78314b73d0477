package sitecheck

import (
	"strings"
	"testing"
)

func TestCheckNamesTheLineOfAnInvalidARCSitemap(t *testing.T) {
	site := newCheckSite(t, map[string]string{
		"/.well-known/arc-sitemap.json": "{\n  \"arc_sitemap_version\": \"2.1\",\n  \"pages\": [\n    {\"url\": \"x\",}\n  ]\n}\n",
	})
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	if rep.Followable {
		t.Errorf("followable: %s", rep.Verdict)
	}
	var arcs []Problem
	for _, p := range rep.Problems {
		if p.Code == CodeARCInvalid {
			arcs = append(arcs, p)
		}
	}
	if len(arcs) != 1 || arcs[0].Doc != site.URL+"/.well-known/arc-sitemap.json" || arcs[0].Where != "line 4" ||
		!strings.Contains(arcs[0].Problem, "invalid JSON") || !strings.Contains(arcs[0].Fix, "Appendix E") {
		t.Errorf("ARC problems %+v", arcs)
	}
}

func TestCheckNamesTheInvalidPagesOfAnARCSitemap(t *testing.T) {
	site := newCheckSite(t, map[string]string{
		"/":                             "<!doctype html><title>Heron Shrine</title>",
		"/.well-known/arc-sitemap.json": arcShrine,
	})
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	if !rep.Followable || len(rep.Problems) != 1 || len(rep.Warnings) != 0 {
		t.Fatalf("followable %v, problems %+v, warnings %q; want the page without url alone", rep.Followable, rep.Problems, rep.Warnings)
	}
	p := rep.Problems[0]
	if p.Code != CodeARCPageInvalid || p.Doc != site.URL+"/.well-known/arc-sitemap.json" || p.Where != "page 7" ||
		p.Problem != "The page entry is not valid: page 7 has no url." || !strings.Contains(p.Fix, "tidings skips it until then") {
		t.Errorf("problem %+v", p)
	}
}

// arcShrine is an ARC sitemap of seven pages, three of them private and
// the seventh without its url.
const arcShrine = `{
  "arc_sitemap_version": "2.1",
  "site": "{{base}}",
  "generated_at": "2026-04-30T06:00:00Z",
  "pages": [
    {"url": "{{base}}/gallery.html", "lastmod": "2026-04-29T10:00:00Z", "ai_indexable": true, "ai_summary": "Ink drawings of herons, updated weekly.",
     "ai_tags": ["art", "ink"], "ai_checksum": "sha256:g1", "ai_snapshot": {"title": "The Gallery", "sections": []}},
    {"url": "{{base}}/about.html", "lastmod": "2026-01-02T00:00:00Z", "ai_indexable": true, "ai_summary": "Who draws here."},
    {"url": "{{base}}/news.html", "ai_indexable": true, "ai_summary": "News, undated."},
    {"url": "{{base}}/drafts.html", "lastmod": "2026-04-29T11:00:00Z", "ai_indexable": false, "ai_summary": "SECRET-DRAFTS"},
    {"url": "{{base}}/members.html", "lastmod": "2026-04-29T11:00:00Z", "ai_indexable": true, "auth_required": true, "ai_summary": "SECRET-MEMBERS"},
    {"url": "{{base}}/staging.html", "lastmod": "2026-04-29T11:00:00Z", "ai_indexable": true, "robots_directive": "noindex, nofollow", "ai_summary": "SECRET-STAGING"},
    {"lastmod": "2026-04-29T11:00:00Z", "ai_indexable": true, "ai_summary": "an entry without url"}
  ]
}
`

// TestCheckOfABrokenARCSitemapBesidePages: the site is followable by its
// pages, and the check names the ARC sitemap that could not be read, once,
// as a problem with its fix rather than a warning too.
func TestCheckOfABrokenARCSitemapBesidePages(t *testing.T) {
	site := newCheckSite(t, map[string]string{
		"/.well-known/arc-sitemap.json": "{\n  \"arc_sitemap_version\": \"2.1\",\n  \"pages\": [\n    {\"url\": \"x\",}\n  ]\n}\n",
		"/":                             "<!doctype html><title>Heron Shrine</title><p>Herons.</p>",
	})
	_, h := checkHarvester(t)
	rep := runCheck(t, h, site.URL)
	if !rep.Followable {
		t.Fatalf("not followable: %s", rep.Verdict)
	}
	if got := problemsByCode(rep)[CodeARCInvalid]; len(got) != 1 || got[0].Where != "line 4" {
		t.Errorf("ARC problems %+v", got)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "arc-sitemap.json") {
			t.Errorf("the broken sitemap is a warning too: %s", w)
		}
	}
}
