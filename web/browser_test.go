package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/mmcdole/gofeed"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/internal/fixturesite"
	"tidings/opml"
	"tidings/sitecheck"
	"tidings/web"
)

// Bounds of the browser test: the whole walk, and any one step of it.
const (
	browserTestTimeout = 60 * time.Second
	browserStepTimeout = 15 * time.Second
)

// TestBrowserJourney walks two people through the web UI in a headless
// Chromium against the real server: the first signs up, adds a site, reads
// its feeds, exports OPML and invites the second, who signs up with the
// invite and imports the first one's OPML file.
func TestBrowserJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserApp(t)
	b := startBrowser(t, execPath)
	shrine, gallery := "My Shrine & Co", app.site.URL+"/gallery/"

	b.signUp(app.base+"signup", "alice")
	b.expectText("h1", "Your sites")

	b.clickLink("Add a site")
	b.fill("Site address", app.site.URL)
	b.submit("Follow")
	// The discovery waits for the gate, so the pending page is certain.
	if got := b.eval(`document.querySelector("#discovery-status").dataset.status`); got != "pending" {
		t.Errorf("discovery status before the harvester ran = %q, want pending", got)
	}
	if got := b.eval(`document.querySelector('meta[http-equiv="refresh"]')?.content ?? ""`); got == "" {
		t.Error("the pending discovery page has no meta refresh")
	}
	app.release()
	// Nothing navigates here: only the page's own refresh can show the result.
	b.waitFor(`#discovery-status[data-status="followed"]`)
	b.clickLink("See the site and its feeds")
	b.waitText("ul.collections", shrine, gallery)

	b.clickLink("Dashboard")
	b.waitText("ul.collections", shrine, gallery)
	b.screenshot("tidings-dashboard.png")
	feedURLs := b.feedURLs()
	checkFeeds(t, feedURLs, []string{shrine + " — changes", gallery + " — changes"})
	checkFeeds(t, []string{b.eval(`document.querySelector("#user-feed").value`)}, []string{"Everything alice follows — changes"})
	opmlPath := filepath.Join(t.TempDir(), "alice.opml")
	checkOPML(t, b.fetch(app.base+"opml", "text/x-opml"), opmlPath, feedURLs, app.site.URL)

	b.clickLink("Admin")
	b.submit("Create an invite link")
	invite := b.eval(`document.querySelector("ul.invites input.feedurl[readonly]")?.value ?? ""`)
	if !strings.HasPrefix(invite, app.base+"signup?invite=") {
		t.Fatalf("invite link = %q, want one starting with %ssignup?invite=", invite, app.base)
	}
	b.submit("Sign out alice")
	b.expectText("nav", "Sign in")

	b.signUp(invite, "bob")
	b.expectText("main", "You follow no site yet")
	b.clickLink("Import")
	b.upload("File", opmlPath)
	b.submit("Import")
	b.waitFor(`#import-status[data-pending="0"]`)
	b.waitText("ul.followed", app.site.URL)
	b.clickLink("Back to your sites")
	b.waitText("ul.collections", shrine, gallery)
	if got := b.feedURLs(); !slices.Equal(got, feedURLs) {
		t.Errorf("bob's feed URLs = %q, want alice's %q", got, feedURLs)
	}

	b.checkConsole()
}

// findBrowser returns the path of a Chromium or Chrome, or skips the test
// (fails it in CI, where one must be installed).
func findBrowser(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium, chromium-browser or google-chrome found: browser test not run (apt-get install chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browserApp is a running tidings following nothing yet, and a fixture site
// to follow.
type browserApp struct {
	base    string // ends in "/"
	store   *db.DB
	site    *fixturesite.Site
	release func() // lets discoveries reach the harvester
}

// gatedHarvester holds every follow until its gate opens.
type gatedHarvester struct {
	*harvest.Harvester
	gate <-chan struct{}
}

func (g gatedHarvester) FollowNew(ctx context.Context, root, input string) (*harvest.SiteReport, *harvest.Discovery, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return g.Harvester.FollowNew(ctx, root, input)
}

func (g gatedHarvester) Refollow(ctx context.Context, site db.Site, input string) (*harvest.SiteReport, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Harvester.Refollow(ctx, site, input)
}

func startBrowserApp(t *testing.T) *browserApp {
	t.Helper()
	return startBrowserAppWith(t, accounts.RegistrationInvite)
}

// startBrowserAppWith starts the app with a registration mode of its own.
func startBrowserAppWith(t *testing.T, registration string) *browserApp {
	t.Helper()
	site := fixturesite.New(time.Now().UTC().Truncate(time.Second))
	t.Cleanup(site.Close)
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	var once sync.Once
	app := &browserApp{base: "http://" + ln.Addr().String() + "/", store: store, site: site, release: func() { once.Do(func() { close(gate) }) }}
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-browser-test"})
	h := harvest.New(client, store, harvest.Options{})
	srv, err := web.New(store, web.Options{
		BaseURL:      app.base,
		Registration: registration,
		Follow:       follow.New(store, gatedHarvester{h, gate}, follow.Options{}),
		Checker:      sitecheck.New(h),
		Logger:       slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		app.release()
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return app
}

// browser drives one tab and fails the test on any error.
type browser struct {
	t      *testing.T
	ctx    context.Context
	output *lockedBuffer // the browser's stdout and stderr

	mu       sync.Mutex
	problems []string // console errors, exceptions and security messages
	// expected are the addresses opened for their error page, whose
	// status the console reports as an error.
	expected map[string]bool
}

func startBrowser(t *testing.T, execPath string) *browser {
	t.Helper()
	b := &browser{t: t, output: &lockedBuffer{}}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(t.Context(),
		chromedp.ExecPath(execPath),
		chromedp.Headless,
		// The sandbox needs user namespaces or a setuid helper, which root in
		// a container lacks; the browser only loads this test's own pages.
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		// Docker's /dev/shm is 64 MB, too small for Chromium's shared memory;
		// Debian's launcher means to add this flag but misreads findmnt when
		// /dev/shm has several mounts.
		chromedp.Flag("disable-dev-shm-usage", true),
		// Only loopback traffic: no updates, sync, QUIC, proxy or lookups of
		// other hosts.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.CombinedOutput(b.output),
	)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, browserTestTimeout)
	// Cancelling waits for the browser to exit, before its profile
	// directory is removed.
	t.Cleanup(func() { cancelTimeout(); cancelTab(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v\n%s", execPath, err, b.output.tail(20))
	}
	if err := chromedp.Listen(ctx, b.record); err != nil {
		t.Fatal(err)
	}
	return b
}

// record keeps the console messages that show a broken page. It runs in the
// tab's event loop, so it only appends.
func (b *browser) record(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg = "exception: " + ev.ExceptionDetails.Text
		if ex := ev.ExceptionDetails.Exception; ex != nil {
			msg += " " + ex.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			msg = fmt.Sprintf("console.%s called", ev.Type)
		}
	case *log.EventEntryAdded:
		e := ev.Entry
		// The browser asks for /favicon.ico by itself; no page links it.
		favicon := e.Source == log.EntrySourceNetwork && strings.HasSuffix(e.URL, "/favicon.ico")
		b.mu.Lock()
		expected := e.Source == log.EntrySourceNetwork && b.expected[e.URL]
		b.mu.Unlock()
		if !favicon && !expected && (e.Level == log.EntryLevelError || e.Source == log.EntrySourceSecurity) {
			msg = fmt.Sprintf("%s %s: %s (%s)", e.Source, e.Level, e.Text, e.URL)
		}
	}
	if msg != "" {
		b.mu.Lock()
		b.problems = append(b.problems, msg)
		b.mu.Unlock()
	}
}

// checkConsole fails the test if any page logged an error, then proves
// that a CSP violation would have been caught.
func (b *browser) checkConsole() {
	b.t.Helper()
	b.mu.Lock()
	problems := slices.Clone(b.problems)
	b.mu.Unlock()
	for _, p := range problems {
		b.t.Errorf("browser console: %s", p)
	}
	// img-src 'self' refuses another port; were it allowed, loopback port 1
	// refuses the connection.
	b.eval(`(() => { const i = new Image(); i.src = "http://127.0.0.1:1/csp-canary.png"; document.body.append(i); return "" })()`)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b.mu.Lock()
		caught := slices.ContainsFunc(b.problems[len(problems):], func(p string) bool { return strings.Contains(p, "csp-canary") })
		b.mu.Unlock()
		if caught {
			return
		}
	}
	b.t.Error("an image refused by the Content-Security-Policy left no console message: the console check proves nothing")
}

// step runs f with a bounded context and fails the test on error.
func (b *browser) step(what string, f func(ctx context.Context) error) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserStepTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		b.t.Fatalf("%s: %v\n%s", what, err, b.describe())
	}
}

// describe tells where the tab is and what it shows, for failures.
func (b *browser) describe() string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if len(text) > 1500 {
		text = text[:1500] + "…"
	}
	return fmt.Sprintf("page %s:\n%s", loc, text)
}

func (b *browser) navigate(url string) {
	b.t.Helper()
	b.step("open "+url, func(ctx context.Context) error {
		resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
		return okResponse(resp, err)
	})
}

// signUp fills and submits the sign-up form at url, and expects the
// dashboard.
func (b *browser) signUp(url, name string) {
	b.t.Helper()
	b.navigate(url)
	b.fill("Name", name)
	b.fill("Password", name+" has a long password")
	b.submit("Create account")
	b.expectText("nav", "Sign out "+name)
}

// fill types into the field labelled label.
func (b *browser) fill(label, value string) {
	b.t.Helper()
	b.step("fill "+label, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.SendKeys(labelled(label), value))
	})
}

// upload sets the file input labelled label.
func (b *browser) upload(label, path string) {
	b.t.Helper()
	b.step("upload to "+label, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.SetUploadFiles(labelled(label), []string{path}))
	})
}

// submit clicks the button labelled text and waits for the next page.
func (b *browser) submit(text string) {
	b.t.Helper()
	b.click("button", text)
}

// clickLink follows the first link labelled text.
func (b *browser) clickLink(text string) {
	b.t.Helper()
	b.click("a", text)
}

func (b *browser) click(element, text string) {
	b.t.Helper()
	sel := chromedp.Search(fmt.Sprintf(`//%s[normalize-space()=%s]`, element, xpathString(text)))
	b.step(fmt.Sprintf("click %s %q", element, text), func(ctx context.Context) error {
		resp, err := chromedp.RunResponse(ctx, chromedp.Click(sel, chromedp.NodeVisible))
		return okResponse(resp, err)
	})
}

func okResponse(resp *network.Response, err error) error {
	switch {
	case err != nil:
		return err
	case resp == nil:
		return fmt.Errorf("no response")
	case resp.Status != http.StatusOK:
		return fmt.Errorf("%s answered %d", resp.URL, resp.Status)
	}
	return nil
}

// labelled selects the form field whose label's text, before any child
// element, is text; a field without a working label is not found.
func labelled(text string) chromedp.Search {
	return chromedp.Search(fmt.Sprintf(`//*[@id=//label[normalize-space(text()[1])=%s]/@for]`, xpathString(text)))
}

func xpathString(s string) string {
	if strings.Contains(s, `"`) {
		return "'" + s + "'"
	}
	return `"` + s + `"`
}

// eval evaluates a JavaScript expression giving a string.
func (b *browser) eval(expr string) string {
	b.t.Helper()
	var out string
	b.step("evaluate "+expr, func(ctx context.Context) (err error) {
		out, err = chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		return err
	})
	return out
}

// poll waits until a JavaScript expression is true. It survives the page
// reloading itself meanwhile.
func (b *browser) poll(what, expr string) {
	b.t.Helper()
	b.step(what, func(ctx context.Context) error {
		for {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
			if err == nil && ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("gave up (last error: %v): %w", err, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
}

// waitFor waits until an element matching the CSS selector is there.
func (b *browser) waitFor(css string) {
	b.t.Helper()
	b.poll("wait for "+css, fmt.Sprintf(`document.querySelector(%q) !== null`, css))
}

// waitText waits until the element matching css contains every string.
func (b *browser) waitText(css string, want ...string) {
	b.t.Helper()
	b.poll(fmt.Sprintf("wait for %q in %s", want, css), fmt.Sprintf(
		`((el, want) => el !== null && want.every(w => el.textContent.includes(w)))(document.querySelector(%q), %s)`,
		css, jsStrings(want)))
}

// expectText checks, without waiting, that the element contains text.
func (b *browser) expectText(css, text string) {
	b.t.Helper()
	got := b.eval(fmt.Sprintf(`document.querySelector(%q)?.textContent ?? ""`, css))
	if !strings.Contains(got, text) {
		b.t.Fatalf("%s does not contain %q\n%s", css, text, b.describe())
	}
}

func jsStrings(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(quoted, ",") + "]"
}

// feedURLs reads the collections' feed URLs from their read-only fields.
func (b *browser) feedURLs() []string {
	b.t.Helper()
	var urls []string
	b.step("read feed URLs", func(ctx context.Context) (err error) {
		urls, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("ul.collections input.feedurl")].filter(e => e.readOnly).map(e => e.value)`))
		return err
	})
	slices.Sort(urls)
	return urls
}

// screenshot saves a PNG of the whole page to $TIDINGS_SCREENSHOT_DIR, or a
// temporary directory.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("TIDINGS_SCREENSHOT_DIR")
	if dir == "" {
		dir = b.t.TempDir()
	}
	var png []byte
	b.step("screenshot", func(ctx context.Context) (err error) {
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		return err
	})
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		b.t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

// fetch GETs url from Go with the browser's cookies, as a download would,
// and checks the media type.
func (b *browser) fetch(url, mediaType string) []byte {
	b.t.Helper()
	var cookies []*network.Cookie
	b.step("read cookies", func(ctx context.Context) error {
		res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
		cookies = res.Cookies
		return err
	})
	req, err := http.NewRequestWithContext(b.ctx, http.MethodGet, url, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, c := range cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	return get(b.t, req, mediaType)
}

// get runs req without following redirects and returns the body of a 200
// answer of mediaType.
func get(t *testing.T, req *http.Request, mediaType string) []byte {
	t.Helper()
	client := &http.Client{
		Timeout:       browserStepTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), mediaType) {
		t.Fatalf("GET %s: %s, Content-Type %q, want 200 and %s\n%.500s", req.URL, resp.Status, resp.Header.Get("Content-Type"), mediaType, body)
	}
	return body
}

// checkFeeds fetches each feed and parses it, expecting these titles.
func checkFeeds(t *testing.T, urls, titles []string) {
	t.Helper()
	var got []string
	for _, u := range urls {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		feed, err := gofeed.NewParser().Parse(bytes.NewReader(get(t, req, "application/atom+xml")))
		if err != nil {
			t.Fatalf("parse the feed %s: %v", u, err)
		}
		if feed.FeedType != "atom" {
			t.Errorf("%s is a %s feed, want atom", u, feed.FeedType)
		}
		got = append(got, feed.Title)
	}
	slices.Sort(got)
	titles = slices.Sorted(slices.Values(titles))
	if !slices.Equal(got, titles) {
		t.Errorf("feed titles = %q, want %q", got, titles)
	}
}

// checkOPML parses an OPML export, expects one subscription per feed URL
// pointing back at the site, and saves it to path.
func checkOPML(t *testing.T, doc []byte, path string, feedURLs []string, siteURL string) {
	t.Helper()
	outlines, skipped, err := opml.Parse(bytes.NewReader(doc), 1<<20)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("parse the OPML export: %v (skipped %q)\n%s", err, skipped, doc)
	}
	var got []string
	for _, o := range outlines {
		got = append(got, o.XMLURL)
		if !strings.HasPrefix(o.HTMLURL, siteURL+"/") {
			t.Errorf("outline %q: htmlUrl %q is not on the site %s", o.Title, o.HTMLURL, siteURL)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, feedURLs) {
		t.Errorf("OPML feeds = %q, want the dashboard's %q", got, feedURLs)
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer collects the browser's output from its goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// tail returns the last n lines written.
func (l *lockedBuffer) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(l.buf.String()), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
