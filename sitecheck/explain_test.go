package sitecheck

import (
	"errors"
	"strings"
	"testing"

	arcdoc "tidings/arc"
	"tidings/harvest"
	arcsource "tidings/harvest/arc"
	"tidings/harvest/pages"
	"tidings/harvest/scp"
	"tidings/scpbridge"
)

// TestCheckAsksTheSourceToExplain: a document rejected and a collection
// failed are said in the words of their source when it is a
// harvest.Explainer, and as they are when it is not.
func TestCheckAsksTheSourceToExplain(t *testing.T) {
	const u = "https://example.org/scp/blog.scp"
	l := &checkLog{}
	l.Rejected(scp.Source{}.Name(), "delta", u, &scpbridge.Error{Line: 3, Msg: "the line is not valid JSON"})
	l.Rejected(pages.Source{}.Name(), "page", u+"2", errors.New("it is broken"))
	if len(l.problems) != 2 {
		t.Fatalf("problems %+v, want two", l.problems)
	}
	if p := l.problems[0]; p.Problem != "the SCP file is not valid: the line is not valid JSON" || !strings.Contains(p.Fix, "rejects the whole file") || !p.Blocking {
		t.Errorf("SCP, an Explainer: %+v", p)
	}
	if p := l.problems[1]; p.Problem != "the page is not valid: it is broken" || !strings.Contains(p.Fix, "follows its specification") {
		t.Errorf("watched pages, no Explainer: %+v", p)
	}
	failed := Collection{Protocol: arcsource.Source{}.Name(), Title: "Herons", Source: "https://example.org/arc.json",
		Error:   "the ARC sitemap https://example.org/arc.json is not valid: line 2: invalid JSON",
		failure: &harvest.Problem{Msg: "…", Err: &arcdoc.Error{Line: 2, Msg: "invalid JSON"}}}
	if p := failedProblem(failed); p.Problem != "the ARC sitemap is not valid: invalid JSON" || !strings.Contains(p.Fix, "Appendix E") {
		t.Errorf("ARC, an Explainer: %+v", p)
	}
	failed.failure = errors.New("the sitemap answered 500")
	if p := failedProblem(failed); p.Problem != failed.Error || p.Fix != "Until this is fixed, tidings cannot harvest the collection Herons." {
		t.Errorf("a failure ARC has no words for: %+v", p)
	}
}
