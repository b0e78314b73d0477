package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"

	"tidings/db"
	"tidings/fetch"
	"tidings/notify"
	"tidings/web"
)

// startSettingsApp serves a store with a notifier whose SMTP server is
// smtpURL ("" for e-mail off); nothing is sent in these tests, the
// outbox is read instead.
func startSettingsApp(t *testing.T, store *db.DB, smtpURL string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/"
	n, err := notify.New(store, notify.Options{
		BaseURL: base, SMTPURL: smtpURL, MailFrom: "tidings@tidings.test",
		Client: fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-browser-test"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(store, web.Options{
		BaseURL: base, Notify: n,
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return base
}

var confirmLink = regexp.MustCompile(`http://\S+/notify/confirm\?t=\S+`)

// TestBrowserSettings: a person sets the address of their digest and
// confirms it by the link sent there, adds a push target (a refused one
// first) and removes it; where the operator set no SMTP server the page
// says e-mail is off.
func TestBrowserSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	// Port 9 (discard): nothing dials it, the messages stay queued.
	base := startSettingsApp(t, store, "smtp://127.0.0.1:9")
	b := startBrowser(t, execPath)

	b.signUp(base+"signup", "ann")
	b.clickLink("Settings")
	b.expectText("h1", "Settings")
	b.fill("E-mail address", "ann@example.org")
	b.submit("Save")
	b.expectText(".notice", "A confirmation link is on its way")
	b.expectText("#email-pending", "ann@example.org")

	ann, err := store.UserByName(t.Context(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	out, err := store.Outbox(t.Context(), ann.ID)
	if err != nil || len(out) != 1 || out[0].Address != "ann@example.org" {
		t.Fatalf("outbox %+v, %v; want the confirmation to ann@example.org", out, err)
	}
	var msg struct{ Text string }
	json.Unmarshal([]byte(out[0].Message), &msg)
	link := confirmLink.FindString(msg.Text)
	if link == "" {
		t.Fatalf("no confirmation link in:\n%s", msg.Text)
	}
	b.navigate(link)
	b.expectText("h1", "Send your digest of changes to this address?")
	b.submit("Confirm the address")
	b.expectText("h1", "Address confirmed")
	b.clickLink("Settings")
	b.expectText("#email-now", "ann@example.org")

	b.fill("Notification URL", "nope://example.org/x")
	b.submitStatus("Add", base+"settings/push", http.StatusUnprocessableEntity)
	b.expectText("#push-error", "is not a notification URL tidings can send to")
	b.clickLink("Settings")
	hook := "generic+http://127.0.0.1:9/hook"
	b.fill("Notification URL", hook)
	b.submit("Add")
	b.expectText("ul.targets", hook)
	b.expectText("ul.targets", "everything you follow")
	b.screenshot("tidings-settings.png")
	b.submit("Remove")
	b.expectText(".notice", "Removed.")
	b.expectText("main", "None yet.")

	// The same account on a tidings without an SMTP server.
	off := startSettingsApp(t, store, "")
	b.navigate(off + "settings")
	b.expectText("#email-off", "E-mail is off on this tidings")
	b.checkConsole()
}

// submitStatus clicks the button labelled text, whose form posts to url,
// and expects the answer code.
func (b *browser) submitStatus(text, url string, code int) {
	b.t.Helper()
	b.mu.Lock()
	if b.expected == nil {
		b.expected = map[string]bool{}
	}
	b.expected[url] = true
	b.mu.Unlock()
	sel := chromedp.Search(fmt.Sprintf(`//button[normalize-space()=%s]`, xpathString(text)))
	b.step(fmt.Sprintf("click button %q", text), func(ctx context.Context) error {
		resp, err := chromedp.RunResponse(ctx, chromedp.Click(sel, chromedp.NodeVisible))
		if err == nil && resp.Status != int64(code) {
			err = fmt.Errorf("%s answered %d, want %d", url, resp.Status, code)
		}
		return err
	})
}
