package harvest_test

import (
	"context"
	"strings"
	"testing"

	"tidings/harvest"
)

func TestCheckNamesTheLineOfAnInvalidARCSitemap(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/.well-known/arc-sitemap.json", jsonType, "{\n  \"arc_sitemap_version\": \"2.1\",\n  \"pages\": [\n    {\"url\": \"x\",}\n  ]\n}\n")
	rep, err := e.h.Check(context.Background(), e.site.URL, harvest.CheckOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Followable {
		t.Errorf("followable: %s", rep.Verdict)
	}
	var arcs []harvest.CheckProblem
	for _, p := range rep.Problems {
		if p.Code == harvest.CheckARCInvalid {
			arcs = append(arcs, p)
		}
	}
	if len(arcs) != 1 || arcs[0].Doc != e.site.URL+"/.well-known/arc-sitemap.json" || arcs[0].Where != "line 4" ||
		!strings.Contains(arcs[0].Problem, "invalid JSON") || !strings.Contains(arcs[0].Fix, "Appendix E") {
		t.Errorf("ARC problems %+v", arcs)
	}
}

func TestCheckNamesTheInvalidPagesOfAnARCSitemap(t *testing.T) {
	e := newARCEnv(t, ts("2026-03-10T12:00:00Z"))
	e.site.Set("/", "text/html", "<!doctype html><title>Heron Shrine</title>")
	e.site.Set("/.well-known/arc-sitemap.json", jsonType, e.site.sitemapJSON(ts("2026-03-10T06:00:00Z"), "", shrinePages()...))
	rep, err := e.h.Check(context.Background(), e.site.URL, harvest.CheckOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Followable || len(rep.Problems) != 1 || len(rep.Warnings) != 0 {
		t.Fatalf("followable %v, problems %+v, warnings %q; want the page without url alone", rep.Followable, rep.Problems, rep.Warnings)
	}
	p := rep.Problems[0]
	if p.Code != harvest.CheckARCPageInvalid || p.Doc != e.site.URL+"/.well-known/arc-sitemap.json" || p.Where != "page 7" ||
		p.Problem != "the page entry is not valid: page 7 has no url" || !strings.Contains(p.Fix, "tidings skips it until then") {
		t.Errorf("problem %+v", p)
	}
}
