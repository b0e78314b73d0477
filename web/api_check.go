package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/sitecheck"
)

// apiCheckReport is a site check as the API tells it: what the check
// page shows, as data.
type apiCheckReport struct {
	Site        string               `json:"site"`
	Title       string               `json:"title"`
	Checked     time.Time            `json:"checked"`
	Followable  bool                 `json:"followable"`
	Verdict     string               `json:"verdict"`
	Found       []string             `json:"found"`
	Tried       []string             `json:"tried"`
	Fetched     []apiCheckFetch      `json:"fetched"`
	FetchedMore int                  `json:"fetched_more"`
	Collections []apiCheckCollection `json:"collections"`
	Problems    []apiCheckProblem    `json:"problems"`
	Warnings    []string             `json:"warnings"`
}

type apiCheckFetch struct {
	URL     string `json:"url"`
	Status  int    `json:"status"`
	OK      bool   `json:"ok"`
	Outcome string `json:"outcome"`
}

type apiCheckCollection struct {
	Protocol string            `json:"protocol"`
	Title    string            `json:"title"`
	Source   string            `json:"source"`
	Pages    int               `json:"pages"`
	Changes  int               `json:"changes"`
	InFeed   int               `json:"in_feed"`
	Error    string            `json:"error"`
	Outcome  string            `json:"outcome"`
	Preview  []apiCheckPreview `json:"preview"`
}

type apiCheckPreview struct {
	Title   string    `json:"title"`
	Link    string    `json:"link"`
	Updated time.Time `json:"updated"`
	Summary string    `json:"summary"`
}

type apiCheckProblem struct {
	Code     string `json:"code"`
	Document string `json:"document"`
	Where    string `json:"where"`
	Problem  string `json:"problem"`
	Fix      string `json:"fix"`
	Blocking bool   `json:"blocking"`
}

// apiCheck checks a site for its owner, as the check page does and
// within the same limits: GET /api/v1/check?url=…
func (s *Server) apiCheck(c echo.Context) error {
	u := strings.TrimSpace(c.QueryParam("url"))
	if u == "" {
		return &apiProblem{status: http.StatusBadRequest, code: "bad_request", detail: "Give the site's address as ?url=."}
	}
	rep, refused, err := s.gatedCheck(c, u)
	if refused != nil {
		p := &apiProblem{status: refused.status, code: refused.code, detail: refused.msg}
		if refused.retry {
			p.retryAfter = time.Minute
		}
		return p
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, checkReportOf(rep))
}

func checkReportOf(rep *sitecheck.Report) apiCheckReport {
	out := apiCheckReport{Site: rep.Site, Title: rep.Title, Checked: rep.Checked.UTC(), Followable: rep.Followable, Verdict: rep.Verdict,
		Found: nonNil(rep.Found), Tried: nonNil(rep.Tried), FetchedMore: rep.FetchedMore, Warnings: nonNil(rep.Warnings),
		Fetched: []apiCheckFetch{}, Collections: []apiCheckCollection{}, Problems: []apiCheckProblem{}}
	for _, f := range rep.Fetched {
		out.Fetched = append(out.Fetched, apiCheckFetch{URL: f.URL, Status: f.Status, OK: f.OK, Outcome: f.Outcome})
	}
	for _, col := range rep.Collections {
		cc := apiCheckCollection{Protocol: col.Protocol, Title: col.Title, Source: col.Source, Pages: col.Pages, Changes: col.Changes,
			InFeed: col.InFeed, Error: col.Error, Outcome: col.Outcome, Preview: []apiCheckPreview{}}
		for _, p := range col.Preview {
			cc.Preview = append(cc.Preview, apiCheckPreview{Title: p.Title, Link: p.Link, Updated: p.Updated.UTC(), Summary: p.Summary})
		}
		out.Collections = append(out.Collections, cc)
	}
	for _, p := range rep.Problems {
		out.Problems = append(out.Problems, apiCheckProblem{Code: p.Code, Document: p.Doc, Where: p.Where, Problem: p.Problem, Fix: p.Fix, Blocking: p.Blocking})
	}
	return out
}

// nonNil is list, or an empty list: the document's arrays are never null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
