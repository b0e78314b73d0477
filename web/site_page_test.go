package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/db"
)

// hostileLine is page text that would run were it not escaped.
const hostileLine = `New: <script>alert("x")</script> & <img src=x onerror=alert(1)>`

// A long URL and a long word have nowhere to break: on a phone they must
// wrap rather than scroll.
var (
	longURL  = "https://shrine.example/gallery/" + strings.Repeat("tabby", 30) + ".html"
	longWord = "Y" + strings.Repeat("A", 150) + "Y!"
)

// diffCollection stores a site with one collection whose changes carry the
// text diffs harvests store: a changed sentence with hostile text and a
// long word added, a markup-only change, a deleted page, an untitled
// created page, and enough gallery updates for diffs to fold; its harvest
// warns about the long URL. It returns the collection.
func diffCollection(t *testing.T, store *db.DB, at time.Time) db.Collection {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://shrine.example/", InputURL: "https://shrine.example/", Title: "My Shrine"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "scp", Key: "https://shrine.example/", SourceURL: "https://shrine.example/site.scp.gz", Title: "Cats & Co"}})
	if err != nil {
		t.Fatal(err)
	}
	col := cols[0]
	changes := []db.Change{
		{URL: "https://shrine.example/cats.html", Kind: "updated", Datetime: at.Add(-1 * time.Minute), Title: "Cats of the Month",
			TextChange: db.TextChanged, Diff: diffJSON(t,
				"Cats of the Month\nWhiskers sleeps on the warm windowsill every afternoon.\nAge: 3 years",
				"Cats of the Month\nWhiskers purrs on the sunny windowsill every afternoon.\nAge: 3 years\n"+hostileLine+"\n"+longWord)},
		{URL: "https://shrine.example/links.html", Kind: "updated", Datetime: at.Add(-2 * time.Minute), Title: "Links", TextChange: db.TextUnchanged},
		{URL: "https://shrine.example/guestbook.html", Kind: "deleted", Datetime: at.Add(-3 * time.Minute), Title: "The old guestbook"},
		{URL: longURL, Kind: "created", Datetime: at.Add(-4 * time.Minute),
			TextChange: db.TextChanged, Diff: diffJSON(t, "", "Tabbies\nA gallery of tabbies.")},
	}
	for i := range 6 {
		changes = append(changes, db.Change{
			URL: fmt.Sprintf("https://shrine.example/gallery/%d.html", i), Kind: "updated", Datetime: at.Add(-time.Duration(10+i) * time.Minute),
			Title: fmt.Sprintf("Gallery page %d", i), TextChange: db.TextChanged,
			Diff: diffJSON(t, "Gallery\nOld picture caption.", fmt.Sprintf("Gallery\nNew picture caption number %d.", i)),
		})
	}
	_, err = store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run: db.Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: at.Add(-time.Minute), FinishedAt: at,
			Warnings: []string{"the page " + longURL + " took too long to answer; its change has no text"}},
		Changes: changes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return col
}

// TestPagesShowWhatChanged reads the site and collection pages of changes
// with diffs: each page is named by its title, its diff shows inline with
// the site's text escaped, a deleted page is not linked, and diffs past
// the first few are folded.
func TestPagesShowWhatChanged(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	col := diffCollection(t, store, time.Now().UTC().Truncate(time.Second))
	session := signIn(t, store, "ann")
	srv, err := New(store, Options{BaseURL: testBase})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	for _, path := range []string{fmt.Sprintf("/collection/%d", col.ID), fmt.Sprintf("/site/%d", col.SiteID)} {
		rec := serveAs(t, h, path, session)
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body)
		}
		body := rec.Body.String()
		changes := body[strings.Index(body, `<ol class="changes">`):]
		for _, want := range []string{
			`<a class="page" href="https://shrine.example/cats.html" rel="nofollow noopener">Cats of the Month</a>`,
			`<p class="url muted">https://shrine.example/cats.html</p>`,
			`<p>Whiskers <del>sleeps</del><ins>purrs</ins> on the <del>warm</del><ins>sunny</ins> windowsill every afternoon.</p>`,
			`<ins>New: &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;</ins>`,
			`No change to the text (markup, images or styles changed).`,
			`<strong class="kind">Deleted</strong>
<span class="page">The old guestbook</span>`,
			// An untitled page is named by its URL, shown once.
			`rel="nofollow noopener">` + longURL + `</a>`,
			`<p><ins>` + longWord + `</ins></p>`,
			`<p>A gallery of tabbies.</p>`,
		} {
			if !strings.Contains(changes, want) {
				t.Errorf("%s lacks %s", path, want)
			}
		}
		for _, bad := range []string{"<script>", "<img", `href="https://shrine.example/guestbook.html"`, ">https://shrine.example/links.html</a>"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s holds %s", path, bad)
			}
		}
		if n := strings.Count(changes[:strings.Index(changes, "</ol>")], longURL); n != 2 {
			t.Errorf("%s has the untitled page's URL %d times, want twice (in the link and as its name)", path, n)
		}
		// Ten changes, eight with a diff: the five newest changes show theirs,
		// the five gallery diffs after them fold under their one-line summary.
		if n := strings.Count(changes, `<details class="diff">`); n != 5 {
			t.Errorf("%s folds %d diffs, want 5", path, n)
		}
		if !strings.Contains(changes, `<summary>Removed: `) || !strings.Contains(changes, ` Added: New picture caption number 5.</summary>`) {
			t.Errorf("%s: the last folded diff lacks its summary", path)
		}
	}
}

// sitePathOf is a site's page address relative to the base URL, by its
// public id.
func sitePathOf(t *testing.T, store *db.DB, id int64) string {
	t.Helper()
	site, err := store.SiteByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sitePath(site)
}
