package web_test

import (
	"strings"
	"testing"
)

// TestBrowserIgnoreRules: on a followed site's page, a person adds a text
// rule and a CSS selector, sees them listed for everyone with what each
// does, and removes one.
func TestBrowserIgnoreRules(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	app.release()
	b := startBrowser(t, execPath)

	b.signUp(app.base+"signup", "alice")
	b.clickLink("Add a site")
	b.fill("Site address", app.site.URL)
	b.submit("Follow")
	b.waitFor(`#discovery-status[data-status="followed"]`)
	b.clickLink("See the site and its feeds")
	b.waitText("#ignore + p", "Counters and timestamps")
	b.expectText("main", "No rule yet.")

	b.fill("Ignore", "Mood:")
	b.submit("Add rule")
	b.expectText(".notice", "The rule is added")
	b.fill("Ignore", ".webring")
	b.eval(`(() => { document.querySelector("form.rule select").value = "css"; return "" })()`)
	b.submit("Add rule")
	b.waitText("ul.rules", "Mood:", "lines containing this", ".webring", "CSS selector: left out of every page read")
	b.screenshot("tidings-ignore-rules.png")

	b.click("button", "Remove")
	b.expectText(".notice", "The rule is removed")
	if got := b.eval(`document.querySelector("ul.rules").textContent`); !strings.Contains(got, ".webring") || strings.Contains(got, "Mood:") {
		t.Errorf("rules after removing the first: %q", got)
	}
	b.checkConsole()
}
