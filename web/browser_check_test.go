package web_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tidings/internal/checksite"
)

// TestBrowserCheckOnAPhone checks a faulty site from the form, without an
// account, on a phone-sized screen: the problems are listed with their
// fixes, and nothing scrolls sideways however long the addresses.
func TestBrowserCheckOnAPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	site := checksite.Serve(checksite.Bad(time.Now()))
	t.Cleanup(site.Close)
	b := startBrowser(t, execPath)
	b.step("emulate a phone", func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.EmulateViewport(phoneWidth, 780, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		return err
	})
	b.navigate(app.base)
	b.clickLink("Check a site")
	b.fill("Site address", site.URL)
	b.submit("Check")
	b.waitText("#verdict", "tidings can follow this site (2 collections), but it has 10 problems to fix.")
	b.expectText("#problems", "1 entry of the change list has no datetime.")
	b.expectText("#problems", "Fix: Add datetime=\"…\"")
	b.expectText("#problems", "the SCP snapshot is not valid")
	if got := b.eval(`String(document.querySelectorAll("#problems li").length)`); got != "10" {
		t.Errorf("%s problems listed, want 10", got)
	}
	for _, measure := range []string{"document.documentElement.scrollWidth", "window.innerWidth"} {
		width, err := strconv.Atoi(b.eval("String(" + measure + ")"))
		if err != nil || width > phoneWidth {
			t.Errorf("the check scrolls sideways on a phone: %s = %d (%v), want at most %d; too wide:\n%s",
				measure, width, err, phoneWidth, b.eval(widest))
		}
	}
	b.screenshot("tidings-check-phone.png")
	b.checkConsole()
}
