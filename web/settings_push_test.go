package web

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"tidings/fetch"
	"tidings/notify"
)

// TestSettingsPushBounds: on the settings page, a push URL naming a
// loopback host is refused beside the field with no connection made, and
// a person adds notification URLs up to the bound, the next one refused
// with what to do, and not stored.
func TestSettingsPushBounds(t *testing.T) {
	store := openStore(t)
	var dialed atomic.Int32
	n, err := notify.New(store, notify.Options{BaseURL: testBase,
		Client: fetch.NewClient(fetch.ClientOptions{DialHook: func(string, string) { dialed.Add(1) }})})
	if err != nil {
		t.Fatal(err)
	}
	a := newUIApp(t, store, Options{Notify: n})
	c := a.client(t, "192.0.2.1")
	c.signUp("ann", goodPassword, "")
	c.get("/settings")

	for _, u := range []string{"googlechat://127.0.0.1:8443/v1/spaces/A/messages?key=k&token=t", "opsgenie://127.0.0.1:8443/apikey"} {
		rec := c.post("/settings/push", url.Values{"url": {u}})
		if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "loopback address (127.0.0.1)") {
			t.Errorf("%s: %d, want 422 saying the address is loopback", u, rec.Code)
		}
	}
	rec := c.post("/settings/push", url.Values{"url": {"matrix://u:p@127.0.0.1:8448/?disableTLS=yes"}})
	if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, "Tidings does not send to matrix:// URLs") {
		t.Errorf("matrix: %d, want 422 saying it is not offered", rec.Code)
	}
	if k := dialed.Load(); k != 0 {
		t.Errorf("%d connections attempted while checking URLs", k)
	}

	for i := range notify.DefaultMaxTargets {
		if rec := c.post("/settings/push", url.Values{"url": {fmt.Sprintf("discord://token%d@123456789", i)}}); rec.Code != http.StatusSeeOther {
			t.Fatalf("target %d: %d\n%s", i+1, rec.Code, rec.Body)
		}
	}
	rec = c.post("/settings/push", url.Values{"url": {"discord://one-more@123456789"}})
	want := fmt.Sprintf("You have as many notification URLs as one person may (%d): remove one to add another.", notify.DefaultMaxTargets)
	if body := html.UnescapeString(rec.Body.String()); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
		t.Errorf("one more: %d, want 422 saying %q", rec.Code, want)
	}
	u := a.user(t, "ann")
	if got, err := store.PushTargets(t.Context(), u.ID); err != nil || len(got) != notify.DefaultMaxTargets {
		t.Errorf("%d targets stored (%v), want %d", len(got), err, notify.DefaultMaxTargets)
	}
}
