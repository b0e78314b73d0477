package web_test

import (
	"context"
	"net"
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
	b.expectText("#problems", "The SCP snapshot is not valid")
	// A headline with problems to fix is not green: its colour is the
	// warning's, neither the all-clear's nor a refusal's.
	colour := func(v string) string {
		return b.eval(`(() => { const e = document.createElement("span"); e.style.color = "var(` + v + `)"; document.body.append(e); const c = getComputedStyle(e).color; e.remove(); return c })()`)
	}
	if got, warn, ok := b.eval(`getComputedStyle(document.querySelector("#verdict h2")).color`), colour("--warn"), colour("--ok"); got != warn || got == ok {
		t.Errorf("the headline of a site with problems is %s, want the warning's %s (the all-clear's is %s)", got, warn, ok)
	}
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

// TestBrowserCheckOfAnUnreachableSite: on a phone, the check of a site
// where nothing answers is one short red headline, its fix, and the
// attempts folded.
func TestBrowserCheckOfAnUnreachableSite(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String() + "/"
	l.Close()
	b := startBrowser(t, execPath)
	b.step("emulate a phone", func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.EmulateViewport(phoneWidth, 780, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		return err
	})
	b.navigate(app.base + "check")
	b.fill("Site address", gone)
	b.submit("Check")
	b.waitText("#verdict", "tidings cannot follow this site: the site refused the connection: nothing answers at this address.")
	// The headline is one sentence: a few lines on a phone, where the
	// errors it chained took fourteen.
	lines := b.eval(`(() => { const h = document.querySelector("#verdict h2"); return String(Math.round(h.getBoundingClientRect().height / parseFloat(getComputedStyle(h).lineHeight))) })()`)
	if n, err := strconv.Atoi(lines); err != nil || n > 4 {
		t.Errorf("the headline takes %s lines on a phone", lines)
	}
	b.expectText("#problems", "Fix: Check that the address is right")
	if got := b.eval(`String(document.querySelector("details#looked").open)`); got != "false" {
		t.Errorf("the attempts are not folded: open = %s", got)
	}
	if got := b.eval(`String([...document.querySelectorAll("main *")].filter(e => e.checkVisibility() && e.children.length === 0 && e.textContent.includes("dial tcp")).length)`); got != "0" {
		t.Errorf("%s visible elements show a Go error", got)
	}
	b.fitsWidth("check of an unreachable site", phoneWidth)
	b.checkConsole()
}
