package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"tidings/fetch"
	"tidings/notify"
)

// TestEmailConfirmAsksFirst: the link of a confirmation e-mail, opened
// as a mail scanner opens it, confirms nothing: it asks with a button,
// whose form posts the token with the page's CSRF token; only that post
// confirms the address. A post without the page's token, or with a token
// that is not the link's, confirms nothing either.
func TestEmailConfirmAsksFirst(t *testing.T) {
	store := openStore(t)
	n, err := notify.New(store, notify.Options{BaseURL: testBase, SMTPURL: "smtp://127.0.0.1:9", MailFrom: "tidings@tidings.test",
		Client: fetch.NewClient(fetch.ClientOptions{AllowPrivate: true})})
	if err != nil {
		t.Fatal(err)
	}
	a := newUIApp(t, store, Options{Notify: n})
	c := a.client(t, "192.0.2.1")
	c.signUp("ann", goodPassword, "")
	c.get("/settings")
	if rec := c.post("/settings/email", url.Values{"email": {"ann@example.org"}, "every": {"daily"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("set the address: %d\n%s", rec.Code, rec.Body)
	}
	ann := a.user(t, "ann")
	out, err := store.Outbox(t.Context(), ann.ID)
	if err != nil || len(out) != 1 {
		t.Fatalf("outbox %+v, %v; want the confirmation", out, err)
	}
	var msg struct{ Text string }
	json.Unmarshal([]byte(out[0].Message), &msg)
	link := regexp.MustCompile(`/notify/confirm\?t=[A-Za-z0-9_%-]+`).FindString(msg.Text)
	if link == "" {
		t.Fatalf("no confirmation link in:\n%s", msg.Text)
	}
	confirmed := func() string {
		t.Helper()
		s, err := store.NotifySettingsOf(t.Context(), ann.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s.Email
	}

	scanner := a.client(t, "198.51.100.7")
	rec := scanner.get(link)
	body := html.UnescapeString(rec.Body.String())
	if rec.Code != http.StatusOK || !strings.Contains(body, "Send your digest of changes to this address?") ||
		!strings.Contains(body, `<form method="post" action="`+strings.TrimSuffix(testBase, "/")+link+`"`) || !strings.Contains(body, ">Confirm the address</button>") {
		t.Errorf("GET of the link: %d, want the question and a button posting the token:\n%s", rec.Code, body)
	}
	if got := confirmed(); got != "" {
		t.Fatalf("a GET of the link confirmed %q", got)
	}
	if rec := scanner.postRaw(link, url.Values{}, nil); rec.Code != http.StatusForbidden || confirmed() != "" {
		t.Errorf("a post without the page's CSRF token: %d, confirmed %q; want 403 and nothing confirmed", rec.Code, confirmed())
	}
	if rec := scanner.post("/notify/confirm?t=not-the-token", nil); rec.Code != http.StatusNotFound || confirmed() != "" {
		t.Errorf("a post of another token: %d, confirmed %q; want 404 and nothing confirmed", rec.Code, confirmed())
	}

	reader := a.client(t, "203.0.113.9")
	reader.get(link)
	rec = reader.post(link, nil)
	if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusOK || !strings.Contains(body, "Address confirmed") ||
		!strings.Contains(body, "Your digest of changes goes to ann@example.org, daily.") {
		t.Errorf("the button's post: %d, want the address confirmed:\n%s", rec.Code, body)
	}
	if got := confirmed(); got != "ann@example.org" {
		t.Errorf("after the button, the confirmed address is %q, want ann@example.org", got)
	}
}
