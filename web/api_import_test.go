package web

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"

	"tidings/db"
	"tidings/fetch"
	"tidings/notify"
)

// The OPML export is text: kin-openapi reads it as such.
func init() { openapi3filter.RegisterBodyDecoder("text/x-opml", openapi3filter.PlainBodyDecoder) }

type apiPreviewAnswer struct {
	Format string `json:"format"`
	Follow []struct {
		URL      string   `json:"url"`
		Site     string   `json:"site"`
		Tags     []string `json:"tags"`
		Followed bool     `json:"followed"`
	} `json:"follow"`
	Refused []struct{ What, Why string } `json:"refused"`
	NotSet  []struct{ What, Why string } `json:"not_set"`
}

// rowsOf reads what a person set back from the store: each followed
// site's address with the name they gave it and their own rules, and
// their digest's schedule.
func rowsOf(t *testing.T, store *db.DB, u db.User) (map[string]string, string) {
	t.Helper()
	sites, err := store.FollowedSites(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	titles, _ := store.FollowTitles(t.Context(), u.ID)
	out := map[string]string{}
	for _, s := range sites {
		rules, _ := store.RulesFor(t.Context(), s.ID, u.ID)
		var own []string
		for _, r := range rules {
			if r.UserID == u.ID {
				own = append(own, r.Kind+":"+r.Pattern)
			}
		}
		out[s.URL] = titles[s.ID] + " | " + strings.Join(own, ", ")
	}
	n, err := store.NotifySettingsOf(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return out, n.Every
}

func notifier(t *testing.T, store *db.DB) *notify.Notifier {
	t.Helper()
	n, err := notify.New(store, notify.Options{BaseURL: testBase, Client: fetch.NewClient(fetch.ClientOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAPIImportAndExport: a plain list previewed through the API (what
// it follows, each refusal named, nothing changed), then imported and
// polled; the person's export, imported on an empty tidings by the API,
// gives the same follows, rules and settings, read back from its
// database; the OPML export; and malformed imports, each a problem.
func TestAPIImportAndExport(t *testing.T) {
	site, _ := gardenSite(t)
	store := openStore(t)
	// More imports than one person may make in an hour by default.
	app := newUIApp(t, store, Options{Notify: notifier(t, store), ImportRate: 100})
	api := newAPIServer(t, app)
	ann, token := newPerson(t, app.store, "ann")
	asAnn := api.as(token)

	list := "# my garden\n" + site.URL("/roses") + " Flowers\n\njunk here\n" + site.URL("/ferns") + "\n"
	r := asAnn.call(http.MethodPost, "/import?preview=true", "text/plain", []byte(list), true)
	var pv apiPreviewAnswer
	r.json(t, &pv)
	if r.status != http.StatusOK || pv.Format != "list" || len(pv.Follow) != 1 || pv.Follow[0].Site != site.URL("/") ||
		!reflect.DeepEqual(pv.Follow[0].Tags, []string{"Flowers"}) || pv.Follow[0].Followed {
		t.Errorf("preview: %d %+v", r.status, pv)
	}
	if len(pv.Refused) != 1 || pv.Refused[0].What != "line 4" || pv.Refused[0].Why != `"junk here" is not a web address` {
		t.Errorf("preview refusals %+v", pv.Refused)
	}
	if got, _ := rowsOf(t, store, ann); len(got) != 0 {
		t.Errorf("the preview followed %v", got)
	}

	r = asAnn.call(http.MethodPost, "/import", "text/plain", []byte(list), true)
	var im struct {
		ID          int64    `json:"id"`
		Skipped     []string `json:"skipped"`
		Discoveries []struct {
			Status string  `json:"status"`
			Site   *string `json:"site"`
		} `json:"discoveries"`
	}
	r.json(t, &im)
	if r.status != http.StatusAccepted || !strings.HasSuffix(r.header.Get("Location"), "/api/v1/imports/"+itoa(im.ID)) ||
		len(im.Skipped) != 1 || !strings.HasPrefix(im.Skipped[0], "line 4: ") {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	app.settle(t)
	asAnn.get("/imports/"+itoa(im.ID)).json(t, &im)
	if len(im.Discoveries) != 1 || im.Discoveries[0].Status != db.DiscoveryFollowed || im.Discoveries[0].Site == nil {
		t.Fatalf("the import after its discovery: %+v", im)
	}
	siteID := *im.Discoveries[0].Site
	asAnn.post("/sites/"+siteID+"/rules", map[string]string{"kind": "text", "pattern": "Prune them"})
	asAnn.post("/sites/"+siteID+"/rules", map[string]string{"kind": "css", "pattern": "#visitors"})
	if err := store.SetDigestEvery(t.Context(), ann.ID, db.EveryWeekly); err != nil {
		t.Fatal(err)
	}

	r = asAnn.get("/export")
	var head struct {
		Version int `json:"tidings_export"`
		Follows []struct{ URL string }
	}
	r.json(t, &head)
	if r.status != http.StatusOK || head.Version != 1 || len(head.Follows) != 1 || head.Follows[0].URL != site.URL("/") {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	export := r.body
	if r := asAnn.get("/opml"); r.status != http.StatusOK || !strings.Contains(string(r.body), `<opml version="2.0">`) || !strings.Contains(string(r.body), site.URL("/")) {
		t.Errorf("OPML: %d %s", r.status, r.body)
	}

	// An empty tidings: the export gives the same rows.
	store2 := openStore(t)
	app2 := newUIApp(t, store2, Options{Notify: notifier(t, store2)})
	ann2, token2 := newPerson(t, store2, "ann")
	as2 := newAPIServer(t, app2).as(token2)
	if r := as2.call(http.MethodPost, "/import", "application/json", export, true); r.status != http.StatusAccepted {
		t.Fatalf("import of the export: %d %s", r.status, r.body)
	}
	app2.settle(t)
	want, wantEvery := rowsOf(t, store, ann)
	got, gotEvery := rowsOf(t, store2, ann2)
	if !reflect.DeepEqual(got, want) || gotEvery != wantEvery || want[site.URL("/")] != " | text:Prune them, css:#visitors" || wantEvery != db.EveryWeekly {
		t.Errorf("after the round trip:\n got %q %s\nwant %q %s", got, gotEvery, want, wantEvery)
	}

	// Malformed imports.
	bad := func(method, path, ct string, body []byte, status int, code string) {
		t.Helper()
		asAnn.call(method, path, ct, body, false).problem(t, status, code)
	}
	bad(http.MethodPost, "/import", "text/plain", nil, http.StatusUnprocessableEntity, "import_refused")
	bad(http.MethodPost, "/import", "text/plain", []byte("nothing\nat all\n"), http.StatusUnprocessableEntity, "import_refused")
	bad(http.MethodPost, "/import", "application/json", []byte(`{"tidings_export": 9}`), http.StatusUnprocessableEntity, "import_refused")
	bad(http.MethodPost, "/import", "application/json", []byte(`{"watching": 5}`), http.StatusUnprocessableEntity, "import_refused")
	bad(http.MethodPost, "/import?preview=maybe", "text/plain", []byte(list), http.StatusBadRequest, "bad_request")
	bad(http.MethodPost, "/import", "text/plain", []byte(strings.Repeat("https://a.example/\n", 3<<20/19)), http.StatusRequestEntityTooLarge, "too_large")
	bad(http.MethodGet, "/imports/99999", "", nil, http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/imports/0", "", nil, http.StatusNotFound, "not_found")
	bad(http.MethodGet, "/opml?entries=pages", "", nil, http.StatusBadRequest, "bad_request")
	// Another person's import is not theirs to read.
	_, bobToken := newPerson(t, store, "bob")
	api.as(bobToken).call(http.MethodGet, "/imports/"+itoa(im.ID), "", nil, true).problem(t, http.StatusNotFound, "not_found")
}
