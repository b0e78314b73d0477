package web_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tidings/web"
)

// phoneWidth is the CSS width of a small phone's screen.
const phoneWidth = 360

// TestBrowserPhoneDiffs reads the collection and site pages of changes with
// diffs on a phone-sized screen: nothing scrolls sideways, however long
// the URLs and words, and the diff's marks are there.
func TestBrowserPhoneDiffs(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	col := web.DiffCollection(t, app.store, time.Now().UTC().Truncate(time.Second))
	b := startBrowser(t, execPath)
	b.step("emulate a phone", func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.EmulateViewport(phoneWidth, 780, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		return err
	})
	b.signUp(app.base+"signup", "carol")
	u, err := app.store.UserByName(t.Context(), "carol")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.store.Follow(t.Context(), u.ID, col.SiteID); err != nil {
		t.Fatal(err)
	}

	for _, page := range []struct{ path, shot string }{
		{fmt.Sprintf("collection/%d", col.ID), "tidings-collection-phone.png"},
		{fmt.Sprintf("site/%d", col.SiteID), "tidings-site-phone.png"},
	} {
		b.navigate(app.base + page.path)
		b.expectText("ol.changes", "Cats of the Month")
		if got := b.eval(`String(document.querySelectorAll("ol.changes del").length > 0 && document.querySelectorAll("ol.changes ins").length > 0)`); got != "true" {
			t.Errorf("%s: no <ins> and <del> in the changes", page.path)
		}
		if got := b.eval(`String(screen.width)`); got != strconv.Itoa(phoneWidth) {
			t.Fatalf("%s: the screen is %s px wide, want %d", page.path, got, phoneWidth)
		}
		// A phone zooms out a page wider than its screen, so the visual
		// viewport grows too.
		for _, measure := range []string{"document.documentElement.scrollWidth", "window.innerWidth"} {
			width, err := strconv.Atoi(b.eval("String(" + measure + ")"))
			if err != nil || width > phoneWidth {
				t.Errorf("%s scrolls sideways on a phone: %s = %d (%v), want at most %d; too wide:\n%s",
					page.path, measure, width, err, phoneWidth, b.eval(widest))
			}
		}
		b.screenshot(page.shot)
	}
	b.checkConsole()
}

// widest names the elements reaching past the screen, for a failure.
const widest = `[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > screen.width).slice(0, 10).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right) + "px: " + e.textContent.slice(0, 60)).join("\n")`
