package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"tidings/web"
)

// TestBrowserWalk walks a new person through tidings in Chromium, on a
// desktop screen and on a small phone: sign up, add a site that fails and
// one that works, read the site page, copy a feed address, unfollow with
// its confirmation, and meet the error pages; then a visitor reads the
// site's public page. No page may scroll sideways, log a console error
// or break the Content-Security-Policy.
//
// With TIDINGS_SCREENSHOTS=1 it writes the README's screenshots into
// docs/screenshots; otherwise it compares nothing pixel-wise.
func TestBrowserWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	for _, width := range []int{1280, phoneWidth} {
		t.Run(strconv.Itoa(width), func(t *testing.T) { walk(t, execPath, width) })
	}
}

func walk(t *testing.T, execPath string, width int) {
	app := startBrowserApp(t)
	app.release()
	// A site with nothing to find: every address answers 404.
	empty := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(empty.Close)
	b := startBrowser(t, execPath)
	phone := width == phoneWidth
	if phone {
		b.step("emulate a phone", func(ctx context.Context) error {
			_, err := chromedp.Run(ctx, chromedp.EmulateViewport(phoneWidth, 780, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
			return err
		})
	}

	b.navigate(app.base)
	b.expectText("main", "Create the first account")
	b.fitsWidth("landing", width)
	b.signUp(app.base+"signup", "alice")
	b.expectText("h1", "Your sites")
	alice, err := app.store.UserByName(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	showcase := web.ShowcaseSite(t, app.store, time.Now().UTC())
	if err := app.store.Follow(t.Context(), alice.ID, showcase.ID); err != nil {
		t.Fatal(err)
	}

	// A site without change information: one sentence, the attempts
	// folded, dismissable.
	b.clickLink("Add a site")
	b.fill("Site address", empty.URL)
	b.submit("Follow")
	b.waitFor(`#discovery-status[data-status="failed"]`)
	b.fitsWidth("failed discovery", width)
	b.clickLink("Dashboard")
	b.expectText(".alert", "Every page answered 404 Not Found")
	if got := b.eval(`String(document.querySelector(".alert details").open)`); got != "false" {
		t.Errorf("the attempts are not folded: details.open = %s", got)
	}
	b.fitsWidth("dashboard with a failure", width)
	b.submit("Dismiss")
	b.expectText(".notice", "Dismissed.")
	if got := b.eval(`String(document.querySelectorAll(".alert").length)`); got != "0" {
		t.Errorf("%s failures still shown after dismissing", got)
	}

	// A site that works.
	b.clickLink("Add a site")
	b.fill("Site address", app.site.URL)
	b.submit("Follow")
	b.waitFor(`#discovery-status[data-status="followed"]`)
	b.clickLink("See the site and its feeds")
	b.waitText("ul.collections", "My Shrine & Co")
	b.expectText("h1", "Fixture Site")
	if got := b.eval(`document.querySelector("time[datetime][title]")?.textContent ?? ""`); !strings.Contains(got, "ago") && got != "just now" && !strings.HasPrefix(got, "in ") {
		t.Errorf("the site page's first time reads %q, want a relative time", got)
	}
	b.fitsWidth("site page", width)
	b.copyFeedURL()
	sitePage := b.eval(`location.href`)

	// A harvest asked for, in which one collection fails: the page reloads
	// itself until it is done, and the long error stays within the screen.
	app.site.Fail("/gallery/caps.xml", http.StatusInternalServerError)
	b.submit("Harvest now")
	b.waitText(".notice", "The harvest you asked for is done")
	b.expectText("table.runs", "returned 500 Internal Server Error")
	b.expectText("main", "partly failing: 1 of 2 collections fail")
	b.fitsWidth("site page after a failed harvest", width)
	b.checkHistory(phone)

	b.clickLink("Dashboard")
	b.waitText("main", "My Shrine & Co", "The Cat Shrine")
	b.fitsWidth("dashboard", width)
	b.checkWhatsNew()
	if phone {
		b.docShot("dashboard-phone.png", false)
	} else {
		b.docShot("dashboard.png", false)
	}
	b.clickLink("My Shrine & Co")
	b.expectText("h1", "My Shrine & Co")
	b.fitsWidth("collection page", width)

	// The showcase's pages, whose changes carry titles and text diffs.
	b.clickLink("Dashboard")
	b.clickLink("The Cat Shrine")
	b.expectText("h1", "The Cat Shrine")
	b.expectText("ol.changes", "Whiskers")
	b.fitsWidth("showcase site page", width)
	if phone {
		b.docShot("site-phone.png", true)
	} else {
		b.docShot("site.png", true)
	}
	b.clickLink("Cats of the shrine")
	b.expectText("ol.changes ins", "purrs")
	b.fitsWidth("showcase collection page", width)
	if !phone {
		b.docShot("collection.png", true)
	}

	b.clickLink("Admin")
	b.expectText("table.sites", "partly failing")
	b.fitsWidth("admin", width)

	// Unfollowing asks first, then says what it did.
	b.navigate(sitePage)
	b.clickLink("Unfollow…")
	b.expectText("h1", "Unfollow Fixture Site?")
	b.fitsWidth("unfollow confirmation", width)
	b.submit("Unfollow")
	b.expectText(".notice", "Unfollowed Fixture Site.")
	b.fitsWidth("dashboard after unfollowing", width)
	b.submit("Follow it again")
	b.expectText(".notice", "You now follow Fixture Site.")
	b.clickLink("Dashboard")
	b.clickLink("Make a new address…")
	b.expectText("h1", "Make a new address for your feed?")
	b.fitsWidth("feed address confirmation", width)
	b.submit("Make a new address")
	b.expectText(".notice", "Your feed has a new address")

	// Error pages keep the layout and offer a way on.
	for _, path := range []string{"nowhere", "site/00000000000000000000000000000000"} {
		b.navigateStatus(app.base+path, http.StatusNotFound)
		b.expectText("h1", "Page not found")
		b.expectText("ul.next", "Your sites")
		b.fitsWidth("404 "+path, width)
	}

	// A visitor reads the public site page: its feeds, no buttons.
	b.navigate(app.base)
	b.submit("Sign out alice")
	b.expectText(".notice", "You are signed out.")
	b.navigate(sitePage)
	b.expectText("h1", "Fixture Site")
	if got := b.eval(`String(document.querySelectorAll("main form, main button:not(.copy)").length)`); got != "0" {
		t.Errorf("a visitor sees %s forms and buttons on the site page", got)
	}
	if got := b.eval(`String(document.querySelectorAll('link[rel="alternate"]').length)`); got == "0" {
		t.Error("the public site page has no autodiscovery links")
	}
	b.fitsWidth("public site page", width)

	// The system's dark theme.
	b.step("prefer a dark theme", func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
		})
		return err
	})
	if got := b.eval(`getComputedStyle(document.body).backgroundColor`); got != "rgb(23, 24, 26)" {
		t.Errorf("with a dark theme preferred, the page's background is %s, want rgb(23, 24, 26)", got)
	}

	b.clickLink("Sign in")
	b.expectText("main", "Accounts here are made by invitation")
	b.fitsWidth("sign-in", width)
	b.checkConsole()
}

// fitsWidth fails the test when the page scrolls sideways: wider than the
// window, or on a phone wider than its screen (a phone zooms out a page
// wider than itself, so the window grows too).
func (b *browser) fitsWidth(page string, width int) {
	b.t.Helper()
	for _, measure := range []string{"document.documentElement.scrollWidth", "window.innerWidth"} {
		got, err := strconv.Atoi(b.eval("String(" + measure + ")"))
		if err != nil || got > width {
			b.t.Errorf("%s scrolls sideways at %d px: %s = %d (%v); too wide:\n%s", page, width, measure, got, err, b.eval(widest))
		}
	}
}

// navigateStatus opens url and expects the answer code.
func (b *browser) navigateStatus(url string, code int) {
	b.t.Helper()
	b.mu.Lock()
	if b.expected == nil {
		b.expected = map[string]bool{}
	}
	b.expected[url] = true
	b.mu.Unlock()
	b.step("open "+url, func(ctx context.Context) error {
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
		if err == nil && resp.Status != int64(code) {
			err = fmt.Errorf("%s answered %d, want %d", url, resp.Status, code)
		}
		return err
	})
}

// copyFeedURL presses the first feed address's Copy button, which the
// page's script adds: the button says it copied, or that the address is
// selected for copying where the clipboard is out of reach.
func (b *browser) copyFeedURL() {
	b.t.Helper()
	if got := b.eval(`String(document.querySelectorAll(".copyrow button.copy").length === document.querySelectorAll("input.feedurl").length)`); got != "true" {
		b.t.Fatalf("not every feed address has a Copy button:\n%s", b.describe())
	}
	b.step("press Copy", func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.Click(chromedp.CSS(".copyrow button.copy"), chromedp.NodeVisible))
	})
	b.poll("the Copy button answers", `["Copied", "Selected: copy it"].includes(document.querySelector(".copyrow button.copy").textContent)`)
}

// docShot saves the visible part of the page, or all of it, as one of
// the README's screenshots, when TIDINGS_SCREENSHOTS=1.
func (b *browser) docShot(name string, full bool) {
	b.t.Helper()
	if os.Getenv("TIDINGS_SCREENSHOTS") != "1" {
		return
	}
	var png []byte
	b.step("screenshot "+name, func(ctx context.Context) (err error) {
		if full {
			png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		} else {
			png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
		}
		return err
	})
	dir := filepath.Join("..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
