package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/internal/demosite"
	"tidings/internal/harvesttest"
	"tidings/notify"
	"tidings/web"
)

// TestBrowserDemoMailbox: the demo's mailbox page, after one round of
// changes to its sample sites, shows as a mail client would the digest
// e-mail of that round, with what each page lost and gained, and the
// push of each site that changed; at 360 px nothing scrolls sideways.
// The pieces are the demo's: its sample sites, its mailbox on loopback
// (an SMTP server and a push receiver), the account's address and push
// set as the demo sets them, and a notifier sending there.
func TestBrowserDemoMailbox(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	ctx := t.Context()
	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "tidings.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	sites, err := demosite.Start(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sites.Close)
	mb, err := demosite.StartMailbox()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mb.Close)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/"
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true, UserAgent: "tidings-browser-test"})
	h := harvest.New(client, store, harvest.Options{})
	n, err := notify.New(store, notify.Options{BaseURL: base, SMTPURL: mb.SMTPURL(), MailFrom: "tidings-demo@localhost", Client: client, SendTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(store, web.Options{
		BaseURL: base, Notify: n, Follow: follow.New(store, h, follow.Options{}),
		Mailbox: func() []web.Mail { return mailOf(mb) },
		Logger:  slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(serveCtx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	b := startBrowser(t, execPath)
	b.signUp(base+"signup", "demo")
	b.expectText("#demo-mailbox", "This demo sends its e-mail digests and pushes to a mailbox of its own")
	user, err := store.UserByName(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	hash := accounts.HashToken(accounts.NewToken())
	if err := store.RequestEmail(ctx, user.ID, "demo@localhost", hash, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ConfirmEmail(ctx, hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := store.SetDigestEvery(ctx, user.ID, db.EveryDaily); err != nil {
		t.Fatal(err)
	}
	if _, err := store.AddPushTarget(ctx, user.ID, mb.PushURL(), 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, s := range sites.All {
		rep := harvesttest.Follow(t, h, s.URL+"/")
		if err := store.Follow(ctx, user.ID, rep.Site.ID); err != nil {
			t.Fatal(err)
		}
	}
	// What the follows found goes first; the round's digest then tells
	// only of the round.
	if _, err := n.Run(ctx, notify.RunOptions{AllDigests: true}); err != nil {
		t.Fatal(err)
	}
	before := len(mb.Messages())

	sites.Change(2, time.Now().Add(time.Second))
	for _, s := range sites.All {
		harvesttest.HarvestSite(t, store, h, s.URL+"/")
	}
	rep, err := n.Run(ctx, notify.RunOptions{AllDigests: true})
	if err != nil || rep.Digests != 1 || rep.Pushes < 2 {
		t.Fatalf("the round's notifications: %+v, %v; want a digest and a push a site", rep, err)
	}
	if got := len(mb.Messages()); got < before+3 {
		t.Fatalf("the mailbox holds %d messages after the round, %d before; want the digest and the pushes", got, before)
	}

	b.clickLink("open the mailbox")
	b.expectText("h1", "Mailbox")
	newestMail := `li.mail-email details[open]`
	b.expectText(newestMail+" summary", "E-mail")
	b.expectText(newestMail+" .subject", "tidings: ")
	b.expectText(newestMail+" dl.headers", "demo@localhost")
	b.expectText(newestMail+" pre.mailtext", "What changed on the sites you follow")
	b.expectText(newestMail+" pre.mailtext", "(edit 1)")
	b.expectText(newestMail+" pre.mailtext", "Removed: ")
	b.expectText(newestMail+" pre.mailtext", "Added: ")
	newestPush := `li.mail-push details[open]`
	b.expectText(newestPush+" summary", "Push")
	b.expectText(newestPush+" .subject", "pages changed")
	b.expectText(newestPush+" pre.mailtext", "(edit 1)")
	if got := b.eval(`String(document.querySelectorAll("li.mail").length)`); got != fmt.Sprint(len(mb.Messages())) {
		t.Errorf("the page lists %s messages, the mailbox holds %d", got, len(mb.Messages()))
	}
	b.screenshot("tidings-demo-mailbox.png")
	b.logHeight("mailbox at 1280 px")

	// The HTML part, sandboxed, as a careful mail client shows it.
	b.clickLink("Open it as HTML")
	b.expectText("body", "What changed on the sites you follow")
	if got := b.eval(`String(document.querySelectorAll("del").length > 0 && document.querySelectorAll("ins").length > 0)`); got != "true" {
		t.Errorf("the digest's HTML part shows no <del> and <ins>")
	}

	b.step("emulate a phone", func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.EmulateViewport(phoneWidth, 780, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		return err
	})
	b.navigate(base + "demo/mailbox")
	b.expectText(newestMail+" .subject", "tidings: ")
	b.fitsWidth("the mailbox", phoneWidth)
	b.navOneRow()
	b.screenshot("tidings-demo-mailbox-phone.png")
	b.logHeight("mailbox at 360 px")
	b.checkConsole()
}

// mailOf is the mailbox's messages as the page takes them, as the demo
// hands them over.
func mailOf(mb *demosite.Mailbox) []web.Mail {
	var out []web.Mail
	for _, m := range mb.Messages() {
		out = append(out, web.Mail{ID: m.ID, Push: m.Push, From: m.From, To: m.To, Subject: m.Subject, Date: m.Date,
			Text: m.Text, HTML: m.HTML, Received: m.Received})
	}
	return out
}

// logHeight logs how tall the page is, for the screenshots' notes.
func (b *browser) logHeight(what string) {
	b.t.Helper()
	b.t.Logf("%s: %s px tall", what, strings.TrimSpace(b.eval(`String(document.documentElement.scrollHeight)`)))
}

// navOneRow fails the test unless the brand and every item of the nav,
// signed in (the most items), sit in one row.
func (b *browser) navOneRow() {
	b.t.Helper()
	rows := b.eval(`String(new Set([...document.querySelectorAll("header.top .brand, header.top nav > *")].map(e => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2))).size)`)
	height := b.eval(`String(Math.round(document.querySelector("header.top").getBoundingClientRect().height))`)
	if rows != "1" {
		b.t.Errorf("the nav takes %s rows (the header is %s px tall), want 1", rows, height)
	}
	b.t.Logf("the header is %s px tall", height)
}
