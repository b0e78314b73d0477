package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/fixturesite"
)

// TestBrowserFollowFromAnyPage: the bookmarklet of the add page, run on a
// page of a site the person does not follow, opens the add page with
// that page's address filled in and follows nothing until the click; run
// on a page of a site they follow, the add page says so at once.
func TestBrowserFollowFromAnyPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	app.release()
	b := startBrowser(t, execPath)
	b.signUp(app.base+"signup", "alice")
	b.clickLink("Add a site")
	bookmarklet := b.eval(`document.querySelector("#bookmarklet").getAttribute("href")`)
	if !strings.HasPrefix(bookmarklet, "javascript:location.href=") {
		t.Fatalf("bookmarklet %q", bookmarklet)
	}

	// On a page of a site alice does not follow yet.
	other := fixturesite.New(time.Now().UTC().Truncate(time.Second))
	t.Cleanup(other.Close)
	other.Set("/notes.html", "<!doctype html><html><head><title>Notes</title></head><body><p>Some notes.</p></body></html>")
	page := other.URL + "/notes.html"
	b.navigate(page)
	runBookmarklet(b, bookmarklet)
	if got := b.eval(`document.querySelector("#url").value`); got != page {
		t.Errorf("the add page's address field holds %q, want %q", got, page)
	}
	if got := b.eval(`document.querySelector("#known")?.dataset.known ?? "none"`); got != "none" {
		t.Errorf("a site nobody follows is said to be %q", got)
	}
	if n := follows(t, app.store); n != 0 {
		t.Fatalf("%d follows before the click; the bookmarklet must not follow", n)
	}
	b.submit("Follow")
	b.waitFor(`#discovery-status[data-status="followed"]`)
	if n := follows(t, app.store); n != 1 {
		t.Fatalf("%d follows after the click, want 1", n)
	}

	// On a page of the site she now follows.
	b.navigate(page)
	runBookmarklet(b, bookmarklet)
	b.waitFor(`#known[data-known="followed"]`)
	b.expectText("#known", "You already follow")
}

// runBookmarklet opens the bookmarklet's javascript: link in the page
// open, as a click on the bookmark does, and waits for the add page it
// opens.
func runBookmarklet(b *browser, href string) {
	b.t.Helper()
	b.eval(fmt.Sprintf(`setTimeout(() => { location.href = %q }, 0), "run"`, href))
	b.poll("wait for the add page", `location.pathname === "/add" && document.readyState === "complete" && document.querySelector("#url") !== null`)
}

// follows counts every person's follows.
func follows(t *testing.T, store *db.DB) int {
	t.Helper()
	users, err := store.Users(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, u := range users {
		sites, err := store.FollowedSites(t.Context(), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		n += len(sites)
	}
	return n
}
