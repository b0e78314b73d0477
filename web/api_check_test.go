package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/sitecheck"
)

// TestAPICheck: the site check as JSON, through the document and Prism's
// proxy: a plain-sitemap site's report names its collection, the
// documents fetched and the verdict the page shows; no address, one that
// is no address and a private one (where the operator allows none) are
// refused with a problem a person can act on, and so is a fourth check
// within a minute, as on the page.
func TestAPICheck(t *testing.T) {
	app := newUIApp(t, nil, Options{})
	api := newAPIServer(t, app)
	_, token := newPerson(t, app.store, "ann")
	asAnn := api.as(token)
	site, _ := gardenSite(t)

	var rep struct {
		Site        string
		Followable  bool
		Verdict     string
		Fetched     []struct{ URL string }
		Collections []struct {
			Protocol, Source, Outcome string
			Pages                     int
		}
		Problems []struct{ Code, Problem, Fix string }
	}
	r := asAnn.get("/check?url=" + url.QueryEscape(site.URL("/")))
	if r.status != http.StatusOK {
		t.Fatalf("check: %d %s", r.status, r.body)
	}
	r.json(t, &rep)
	if !rep.Followable || rep.Site != site.URL("/") || !strings.HasPrefix(rep.Verdict, "tidings can follow this site (1 collection)") {
		t.Errorf("report of %s: followable %v, verdict %q", rep.Site, rep.Followable, rep.Verdict)
	}
	if len(rep.Collections) != 1 || rep.Collections[0].Protocol != "sitemap" || rep.Collections[0].Source != site.URL("/sitemap.xml") ||
		rep.Collections[0].Pages != 3 || !strings.HasPrefix(rep.Collections[0].Outcome, "3 pages;") {
		t.Errorf("collections %+v, want the sitemap's, of 3 pages", rep.Collections)
	}
	if !slices.ContainsFunc(rep.Fetched, func(f struct{ URL string }) bool { return f.URL == site.URL("/sitemap.xml") }) {
		t.Errorf("fetched %+v, want the sitemap among them", rep.Fetched)
	}
	for _, p := range rep.Problems {
		if p.Code == "" || p.Problem == "" || p.Fix == "" {
			t.Errorf("problem %+v lacks its code, its sentence or its fix", p)
		}
	}

	asAnn.call(http.MethodGet, "/check", "", nil, false).problem(t, http.StatusBadRequest, "bad_request")
	asAnn.call(http.MethodGet, "/check?url=mailto:ann@example.org", "", nil, true).problem(t, http.StatusUnprocessableEntity, "address_refused")
	api.as("").call(http.MethodGet, "/check?url="+url.QueryEscape(site.URL("/")), "", nil, false).problem(t, http.StatusUnauthorized, "unauthorized")
	// The page's rate: three checks a minute for each client (what is no
	// address at all is not a check).
	for i := 2; i <= 3; i++ {
		if r := asAnn.get("/check?url=" + url.QueryEscape(site.URL("/"))); r.status != http.StatusOK {
			t.Errorf("check %d: %d %s", i, r.status, r.body)
		}
	}
	p := asAnn.get("/check?url="+url.QueryEscape(site.URL("/"))).problem(t, http.StatusTooManyRequests, "too_many_requests")
	if p["retry_after"] != float64(60) {
		t.Errorf("a check past the rate: %v, want to retry after 60 s", p)
	}

	// Where the operator allows no private address, a loopback one is
	// refused before anything is fetched.
	store := openStore(t)
	strict := harvest.New(fetch.NewClient(fetch.ClientOptions{}), store, harvest.Options{})
	closed := newUIApp(t, store, Options{Follow: follow.New(store, strict, follow.Options{}), Checker: sitecheck.New(strict)})
	capi := newAPIServer(t, closed)
	_, ctoken := newPerson(t, closed.store, "bob")
	before := site.Hits("/")
	d := capi.as(ctoken).get("/check?url="+url.QueryEscape(site.URL("/"))).problem(t, http.StatusUnprocessableEntity, "address_refused")
	if detail, _ := d["detail"].(string); !strings.Contains(detail, "loopback") {
		t.Errorf("the refusal says %q, want it to name the loopback address", detail)
	}
	if site.Hits("/") != before {
		t.Error("the refused check fetched the site")
	}
}
