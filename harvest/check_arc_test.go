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
