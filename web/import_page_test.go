package web

import (
	"bytes"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// hiddenValue reads a hidden field's value from a page.
func hiddenValue(t *testing.T, page, name string) string {
	t.Helper()
	m := regexp.MustCompile(`name="` + name + `" value="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no field %s:\n%s", name, page)
	}
	return html.UnescapeString(m[1])
}

// TestImportPreviewThenImport: a list uploaded with Preview says what
// it will follow and names each line it refuses, follows nothing yet;
// the preview's button follows the sites and records the refusals.
func TestImportPreviewThenImport(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	a := newUIApp(t, nil, Options{})
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	u := a.user(t, "ann")
	ann.get("/import")

	list := "# my sites\n" + site.URL + "/shrine/\n\nnot an address\n" + site.URL + "/gallery/ Friends\nmailto:ann@example.org\n"
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", ann.token())
	mw.WriteField("preview", "1")
	fw, _ := mw.CreateFormFile("file", "sites.txt")
	io.WriteString(fw, list)
	mw.Close()
	rec := ann.do(http.MethodPost, "/import", &body, mw.FormDataContentType(), nil)
	page := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("preview: %d\n%s", rec.Code, page)
	}
	for _, want := range []string{
		"Read as a list of addresses.",
		`<span class="url">` + site.URL + `/shrine/</span>`,
		html.EscapeString(`line 4: "not an address" is not a web address`),
		"line 6 (mailto:ann@example.org): ",
		html.EscapeString("line 5 (" + site.URL + "/gallery/) is of the same site: one follow for both"),
		"Tags: Friends (tidings has no folders: they are not kept)",
		"Import 1 site</button>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the preview lacks %q:\n%s", want, page)
		}
	}
	if sites, _ := a.store.FollowedSites(t.Context(), u.ID); len(sites) != 0 {
		t.Errorf("the preview followed %+v", sites)
	}
	if list, _ := a.store.Discoveries(t.Context(), u.ID, 0, 10); len(list) != 0 {
		t.Errorf("the preview started discoveries: %+v", list)
	}

	loc := location(t, ann.post("/import", url.Values{"plan": {hiddenValue(t, page, "plan")}, "refused": {hiddenValue(t, page, "refused")}}))
	result := importResult(t, a, ann, loc)
	if got := section(result, "Followed"); !strings.Contains(got, site.URL+"/shrine/") {
		t.Errorf("followed %q\n%s", got, result)
	}
	skipped := section(result, "Skipped")
	for _, want := range []string{html.EscapeString(`line 4: "not an address" is not a web address`), "line 6 (mailto:ann@example.org): "} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped %q lacks %q", skipped, want)
		}
	}
	if sites, _ := a.store.FollowedSites(t.Context(), u.ID); len(sites) != 1 || sites[0].URL != site.URL+"/" {
		t.Errorf("after the import ann follows %+v", sites)
	}

	// A preview's page that sends back what it never showed changes nothing.
	rec = ann.post("/import", url.Values{"plan": {`{"tidings_export": 1, "follows": []}`}, "refused": {"[not json"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "Upload the file again.") {
		t.Errorf("a tampered preview: %d\n%s", rec.Code, rec.Body.String())
	}

	// The export is the file the import reads.
	rec = ann.get("/export")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Disposition"), "tidings-export.json") ||
		!strings.Contains(rec.Body.String(), `"url": "`+site.URL+`/"`) {
		t.Errorf("export: %d %v\n%s", rec.Code, rec.Header(), rec.Body.String())
	}
}
