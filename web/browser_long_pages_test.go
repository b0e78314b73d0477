package web_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"tidings/web"
)

// TestBrowserLongPages reads the site and collection pages of a site with
// two dozen harvests, at 1280 and 360 px: the feed addresses are in the
// first screenful, the nav is one row on the phone, nothing scrolls
// sideways, and the pages are screenshots of their own (heights logged).
func TestBrowserLongPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	site, col := web.LongSite(t, app.store, 24)
	b := startBrowser(t, execPath)
	b.signUp(app.base+"signup", "dora")
	u, err := app.store.UserByName(t.Context(), "dora")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.store.Follow(t.Context(), u.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	for _, screen := range []struct {
		name          string
		width, height int64
	}{{"1280", 1280, 900}, {"360", phoneWidth, 780}} {
		b.step("a screen "+screen.name+" px wide", func(ctx context.Context) error {
			opts := []chromedp.EmulateViewportOption{}
			if screen.width == phoneWidth {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateScale(2))
			}
			_, err := chromedp.Run(ctx, chromedp.EmulateViewport(screen.width, screen.height, opts...))
			return err
		})
		for _, page := range []struct{ name, path, feed string }{
			{"site", "site/" + site.PublicID, `a[href$=".atom"]`},
			{"collection", "collection/" + col.PublicID, `input.feedurl`},
		} {
			b.navigate(app.base + page.path)
			b.expectText("ol.changes", "Page 23")
			b.expectText("nav.pager", "Older changes")
			bottom, err := strconv.ParseFloat(b.eval(`String(document.querySelector('`+page.feed+`').getBoundingClientRect().bottom)`), 64)
			if err != nil || bottom > float64(screen.height) {
				t.Errorf("%s page at %s px: the feed address ends %v px down (%v), below the first %d px", page.name, screen.name, bottom, err, screen.height)
			}
			b.fitsWidth(page.name+" page", int(screen.width))
			if screen.width == phoneWidth {
				b.navOneRow()
			}
			b.logHeight(page.name + " page at " + screen.name + " px")
			b.screenshot("tidings-" + page.name + "-" + screen.name + ".png")
		}
	}
	b.checkConsole()
}
