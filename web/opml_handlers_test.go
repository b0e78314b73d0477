package web

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/opml"
)

// wantOPML is the export of what user follows, built from the store.
func wantOPML(t *testing.T, store *db.DB, base string, user db.User) opmlFile {
	t.Helper()
	var want opmlFile
	want.Title = "Feeds " + user.Name + " follows on tidings"
	sites, err := store.FollowedSites(t.Context(), user.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sites {
		cols, err := store.Collections(t.Context(), db.CollectionFilter{SiteID: s.ID, ActiveOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		title := s.Title
		if title == "" {
			title = s.URL
		}
		folder := opmlFolder{Text: title}
		for _, c := range cols {
			folder.Feeds = append(folder.Feeds, opmlSub{"rss", c.Title, base + feedbuild.CollectionFeedPath(c), c.Key})
		}
		want.Folders = append(want.Folders, folder)
	}
	return want
}

func TestOPMLExport(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	a := newUIApp(t, fx.store, Options{})
	ann := a.signedIn(t, signIn(t, fx.store, "ann"))
	annUser := a.user(t, "ann")

	rec := ann.get("/opml")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /opml: %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/x-opml; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := rec.Header().Get("Content-Disposition"); cd != `attachment; filename="tidings.opml"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	got := parseOPMLFile(t, rec.Body.Bytes())
	want := wantOPML(t, fx.store, testBase, annUser)
	if len(want.Folders) != 1 || len(want.Folders[0].Feeds) != 2 {
		t.Fatalf("the fixture should give one site of two collections: %+v", want)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GET /opml:\n got %+v\nwant %+v", got, want)
	}
	for _, f := range got.Folders[0].Feeds {
		if !strings.HasPrefix(f.XMLURL, testBase) {
			t.Errorf("xmlUrl %q is not on tidings", f.XMLURL)
			continue
		}
		if rec := serve(t, a.h, "/"+strings.TrimPrefix(f.XMLURL, testBase)); rec.Code != http.StatusOK {
			t.Errorf("xmlUrl %s: %d", f.XMLURL, rec.Code)
		}
	}

	outlines, skipped, err := opml.Parse(bytes.NewReader(rec.Body.Bytes()), 1<<20)
	if err != nil || len(skipped) != 0 {
		t.Fatalf("opml.Parse of the export: %v %q", err, skipped)
	}
	wantOutlines := []opml.Outline{
		{Title: "My Shrine & Co", XMLURL: testBase + public(t, fx.store, "feeds/1.atom"), HTMLURL: fx.url("/shrine/")},
		{Title: fx.url("/gallery/"), XMLURL: testBase + public(t, fx.store, "feeds/2.atom"), HTMLURL: fx.url("/gallery/")},
	}
	if !slices.Equal(outlines, wantOutlines) {
		t.Errorf("opml.Parse of the export:\n got %+v\nwant %+v", outlines, wantOutlines)
	}

	// The CLI's path: the same document, under any base URL.
	var buf bytes.Buffer
	if err := opml.WriteUser(t.Context(), fx.store, testBase, annUser, opml.Digests, &buf); err != nil {
		t.Fatal(err)
	}
	if direct := parseOPMLFile(t, buf.Bytes()); !reflect.DeepEqual(direct, got) {
		t.Errorf("opml.WriteUser differs from GET /opml:\n%+v\n%+v", direct, got)
	}
	const other = "https://feeds.example/tidings/"
	buf.Reset()
	if err := opml.WriteUser(t.Context(), fx.store, other, annUser, opml.Digests, &buf); err != nil {
		t.Fatal(err)
	}
	if direct := parseOPMLFile(t, buf.Bytes()); !reflect.DeepEqual(direct, wantOPML(t, fx.store, other, annUser)) {
		t.Errorf("opml.WriteUser under %s:\n%s", other, buf.Bytes())
	}
	if err := opml.WriteUser(t.Context(), fx.store, "http://[::1", annUser, opml.Digests, &buf); err == nil {
		t.Error("opml.WriteUser accepted a malformed base URL")
	}

	// ?entries=page lists the feeds of one entry per changed page, each
	// served; any other mode is refused.
	pages := ann.get("/opml?entries=page")
	if cd := pages.Header().Get("Content-Disposition"); pages.Code != http.StatusOK || cd != `attachment; filename="tidings-pages.opml"` {
		t.Errorf("GET /opml?entries=page: %d, Content-Disposition %q", pages.Code, cd)
	}
	perPage, _, err := opml.Parse(bytes.NewReader(pages.Body.Bytes()), 1<<20)
	if err != nil || len(perPage) != len(wantOutlines) {
		t.Fatalf("opml.Parse of the per-page export: %v, %d outlines", err, len(perPage))
	}
	for i, o := range perPage {
		if o.XMLURL != wantOutlines[i].XMLURL+"?entries=page" {
			t.Errorf("per-page export lists %s", o.XMLURL)
		}
		if f := anyFeed(t, a.h, "/"+strings.TrimPrefix(o.XMLURL, testBase)); !strings.HasSuffix(f.Title, " — every page") {
			t.Errorf("%s is titled %q", o.XMLURL, f.Title)
		}
	}
	if rec := ann.get("/opml?entries=pages"); rec.Code != http.StatusBadRequest {
		t.Errorf("GET /opml?entries=pages: %d, want 400", rec.Code)
	}
	// The choice is offered where the export link is.
	if page := ann.get("/add").Body.String(); !strings.Contains(page, `href="`+testBase+`opml"`) || !strings.Contains(page, `href="`+testBase+`opml?entries=page"`) {
		t.Errorf("the navigation offers no choice of export:\n%s", page)
	}

	// Unfollowing empties the export.
	ann.get("/")
	location(t, ann.post("/site/1/unfollow", nil))
	if got := parseOPMLFile(t, ann.get("/opml").Body.Bytes()); len(got.Folders) != 0 {
		t.Errorf("export after unfollowing: %+v", got)
	}
}

func TestOPMLImportRefusesBadFiles(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	// More files than one person may import in an hour by default.
	a := newUIApp(t, nil, Options{ImportRate: 100})
	ann := a.signedIn(t, signIn(t, a.store, "ann"))
	user := a.user(t, "ann")
	ann.get("/import")

	outline := `<outline text="x" xmlUrl="` + site.URL + `/feed.xml"/>`
	tests := []struct {
		name, file, want string
	}{
		{"no file", "", "Choose a file to import."},
		{"empty.opml", " ", "The file is empty."},
		{"text.opml", "hello " + site.URL, `Nothing in the file can be followed: line 1: "hello ` + site.URL + `" is not a web address`},
		{"cut.opml", `<opml version="2.0"><body>` + outline + `<outline text="y" xmlUrl="`, "The file is not well-formed XML (line 1): unexpected EOF."},
		{"rss.xml", `<rss version="2.0"><channel><link>` + site.URL + `</link></channel></rss>`, "The file is not OPML: the root element is <rss>."},
		{"entities.opml", `<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY u "` + site.URL + `">]><opml><body><outline xmlUrl="&u;/x"/></body></opml>`,
			"The file declares XML entities, which are not accepted."},
		{"nobody.opml", `<opml version="2.0"><head/></opml>`, "The file has no <body> element."},
		{"none.opml", `<opml version="2.0"><body><outline text="folder"/></body></opml>`, "The file has no outlines with feed or site addresses."},
		{"ftp.opml", `<opml version="2.0"><body><outline text="Old" xmlUrl="ftp://files.example/pub"/></body></opml>`,
			`Nothing in the file can be followed: outline "Old": "ftp://files.example/pub" is not an http or https address`},
		{"trailing.opml", `<opml version="2.0"><body>` + outline + `</body></opml><opml/>`, "The file is not well-formed XML: it goes on after </opml>."},
		{"big.opml", `<opml version="2.0"><body>` + outline + `</body></opml>` + strings.Repeat(" ", 2<<20), "The file is too large: a file is read up to 2 MiB."},
	}
	for _, tt := range tests {
		rec := ann.upload("/import", "opml", strings.TrimPrefix(tt.name, "no file"), tt.file, ann.token())
		body := rec.Body.String()
		if rec.Code != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d, want 422", tt.name, rec.Code)
			continue
		}
		want := `<p class="field-error" id="file-error" role="alert">` + html.EscapeString(tt.want) + `</p>`
		if !strings.Contains(body, want) {
			i := strings.Index(body, `id="file-error"`)
			t.Errorf("%s: page lacks %s\n%s", tt.name, want, body[max(i, 0):])
		}
		if !strings.Contains(body, `aria-invalid="true" aria-describedby="file-error"`) {
			t.Errorf("%s: the file field is not marked invalid", tt.name)
		}
	}
	a.settle(t)
	if _, err := a.store.ImportByID(t.Context(), 1); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("a refused file was stored as an import: %v", err)
	}
	if list, _ := a.store.Discoveries(t.Context(), user.ID, 0, 10); len(list) != 0 {
		t.Errorf("refused files started discoveries: %+v", list)
	}
	if sites, _ := a.store.FollowedSites(t.Context(), user.ID); len(sites) != 0 {
		t.Errorf("refused files followed sites: %+v", sites)
	}
	if n := len(site.Log()); n != 0 {
		t.Errorf("refused files made %d requests: %q", n, site.Log())
	}
}

// importResult waits for an import's discoveries and returns its page.
func importResult(t *testing.T, a *uiApp, c *uiClient, loc string) string {
	t.Helper()
	a.settle(t)
	rec := c.get(strings.TrimPrefix(loc, testBase))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", loc, rec.Code)
	}
	body := rec.Body.String()
	if !strings.Contains(body, `data-pending="0"`) || !strings.Contains(body, "<p>Done.</p>") || strings.Contains(body, "http-equiv=\"refresh\"") {
		t.Errorf("%s is not done:\n%s", loc, body)
	}
	return body
}

// section returns the list under an import result heading.
func section(body, heading string) string {
	_, rest, ok := strings.Cut(body, "<h2>"+heading+"</h2>")
	if !ok {
		return ""
	}
	list, _, _ := strings.Cut(rest, "</ul>")
	return list
}

func TestOPMLImport(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	store := openStore(t)
	held := heldHarvester{
		Harvester: harvest.New(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), store, harvest.Options{}),
		release:   make(chan struct{}),
	}
	a := newUIApp(t, store, Options{Follow: followWith(store, held, follow.Options{})})
	ann := a.signedIn(t, signIn(t, store, "ann"))
	annUser := a.user(t, "ann")

	file := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0"><head><title>From my reader</title></head><body>
<outline text="Reading">
  <outline text="My shrine" type="rss" xmlUrl="%[1]s/shrine/feed.xml" htmlUrl="%[1]s/shrine/"/>
  <outline text="Its gallery" type="rss" xmlUrl="%[1]s/gallery/feed.xml"/>
  <outline text="Old FTP" type="rss" xmlUrl="ftp://files.example/pub/feed"/>
</outline>
</body></opml>`, site.URL)
	ann.get("/import")
	loc := location(t, ann.upload("/import", "opml", "reader.opml", file, ann.token()))
	if loc != testBase+"imports/1" {
		t.Fatalf("import: redirected to %q", loc)
	}
	pending := ann.get("/imports/1").Body.String()
	for _, want := range []string{`data-pending="1"`, "Still looking at 1 site…", `<meta http-equiv="refresh" content="3">`, `<ul class="pending"><li>` + site.URL + `/shrine/</li>`} {
		if !strings.Contains(pending, want) {
			t.Errorf("pending import page lacks %q:\n%s", want, pending)
		}
	}
	close(held.release)
	body := importResult(t, a, ann, loc)
	if got := section(body, "Followed"); !strings.Contains(got, site.URL+"/shrine/ <span class=\"muted\">found 2 collections</span>") {
		t.Errorf("import result: followed %q\n%s", got, body)
	}
	if got := section(body, "Skipped"); !strings.Contains(got, html.EscapeString(`outline "Old FTP": "ftp://files.example/pub/feed" is not an http or https address`)) {
		t.Errorf("import result: skipped %q\n%s", got, body)
	}
	if got := section(body, "Could not be followed"); got != "" {
		t.Errorf("import result: failed %q", got)
	}
	if sites, _ := store.FollowedSites(t.Context(), annUser.ID); len(sites) != 1 || sites[0].URL != site.URL+"/" {
		t.Errorf("after the import ann follows %+v", sites)
	}
	// The reader's name for the site is kept: ann's export names it so.
	if export := ann.get("/opml").Body.String(); !strings.Contains(export, `<outline text="My shrine">`) {
		t.Errorf("ann's export does not keep her reader's name for the site:\n%s", export)
	}
	requests := len(site.Log())

	loc = location(t, ann.upload("/import", "opml", "reader.opml", file, ann.token()))
	body = importResult(t, a, ann, loc)
	if got := section(body, "Already followed"); !strings.Contains(got, "<li>"+site.URL+"/shrine/</li>") {
		t.Errorf("importing again: already followed %q\n%s", got, body)
	}
	if got := section(body, "Followed"); got != "" {
		t.Errorf("importing again: followed %q", got)
	}

	// Bob imports ann's export: the site is known, so nothing is fetched.
	export := ann.get("/opml").Body.String()
	bob := a.signedIn(t, sessionFor(t, store, "bob"))
	bob.get("/import")
	loc = location(t, bob.upload("/import", "opml", "tidings.opml", export, bob.token()))
	body = importResult(t, a, bob, loc)
	if got := section(body, "Followed"); !strings.Contains(got, site.URL+"/shrine/ <span class=\"muted\">followed "+site.URL+"/</span>") {
		t.Errorf("bob's import of ann's export: followed %q\n%s", got, body)
	}
	if n := len(site.Log()); n != requests {
		t.Errorf("importing known sites made %d requests: %q", n-requests, site.Log()[requests:])
	}
	bobUser := a.user(t, "bob")
	if sites, _ := store.FollowedSites(t.Context(), bobUser.ID); len(sites) != 1 || sites[0].URL != site.URL+"/" {
		t.Errorf("after importing ann's export bob follows %+v", sites)
	}
	// The same feeds; the folder is named as bob's file named the site,
	// by its first feed's outline.
	wantFolders := parseOPMLFile(t, []byte(export)).Folders
	if len(wantFolders) == 1 {
		wantFolders[0].Text = wantFolders[0].Feeds[0].Text
	}
	if got := parseOPMLFile(t, bob.get("/opml").Body.Bytes()); !reflect.DeepEqual(got.Folders, wantFolders) {
		t.Errorf("bob's export after importing ann's:\n got %+v\nwant %+v", got.Folders, wantFolders)
	}
	if rec := ann.get("/imports/3"); rec.Code != http.StatusNotFound {
		t.Errorf("ann sees bob's import: %d", rec.Code)
	}
}
