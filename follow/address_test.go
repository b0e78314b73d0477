package follow

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/fixturesite"
)

func TestParseAddress(t *testing.T) {
	for raw, want := range map[string]Address{
		"example.org/":          {Root: "https://example.org/", Input: "https://example.org/", Bare: true},
		" example.org/shrine ":  {Root: "https://example.org/", Input: "https://example.org/shrine", Bare: true},
		"https://example.org":   {Root: "https://example.org/", Input: "https://example.org/"},
		"http://example.org/a/": {Root: "http://example.org/", Input: "http://example.org/a/"},
	} {
		got, err := ParseAddress(raw)
		if err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %+v", raw, got, err, want)
		}
	}
	if _, err := ParseAddress("mailto:ann@example.org"); err == nil {
		t.Error("mailto: was taken for an address")
	}
}

// realService follows with a real harvester over a client that may fetch
// from loopback, where the tests' sites are.
func realService(t *testing.T) (*db.DB, *Service) {
	t.Helper()
	store := openStore(t)
	client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	return store, New(store, harvest.New(client, store, harvest.Options{Snapshots: harvest.SnapshotSettings{Off: true}}), Options{})
}

// TestAddressWithoutSchemeFallsBackToHTTP: a site that answers over http
// only, its address typed without a scheme, is followed over http, and
// the report says that https did not answer. (The fixture answers plain
// http where https is asked: the TLS handshake fails.)
func TestAddressWithoutSchemeFallsBackToHTTP(t *testing.T) {
	site := fixturesite.New(time.Now())
	t.Cleanup(site.Close)
	store, s := realService(t)
	hostPort := strings.TrimPrefix(site.URL, "http://")
	rep, err := s.Follow(t.Context(), hostPort+"/")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Site.URL != site.URL+"/" {
		t.Errorf("followed %s, want %s/", rep.Site.URL, site.URL)
	}
	want := "nothing answered at https://" + hostPort + "/ (the site answers plain http there), so tidings read " + site.URL + "/ instead"
	if !containsString(rep.Run.Warnings, want) {
		t.Errorf("warnings %q lack %q", rep.Run.Warnings, want)
	}
	if _, err := store.SiteByURL(t.Context(), "https://"+hostPort+"/"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("the https address was stored too: %v", err)
	}
	// Typed the same way again, the site stored over http is found.
	rep, err = s.Follow(t.Context(), hostPort+"/shrine/")
	if !errors.Is(err, db.ErrAlreadyExists) || rep == nil || rep.Site.URL != site.URL+"/" {
		t.Errorf("following it again: %v, %+v", err, rep)
	}
}

// TestAddressWithSchemeIsNotTriedOverHTTP: a scheme typed is the one
// used, answer or not.
func TestAddressWithSchemeIsNotTriedOverHTTP(t *testing.T) {
	site := fixturesite.New(time.Now())
	t.Cleanup(site.Close)
	_, s := realService(t)
	if _, err := s.Follow(t.Context(), strings.Replace(site.URL, "http://", "https://", 1)+"/"); err == nil {
		t.Fatal("following an https address of a plain http site worked")
	}
	if n := len(site.Answers()); n != 0 {
		t.Errorf("the site answered %d requests over http", n)
	}
}

// TestAddressThatAnswersNeitherWayKeepsTheHTTPSFailure: nothing listens;
// the https attempt's failure is told, the http one was made and heard
// nothing.
func TestAddressThatAnswersNeitherWayKeepsTheHTTPSFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hostPort := l.Addr().String()
	l.Close()
	client := fetch.NewClient(fetch.ClientOptions{AllowPrivate: true})
	a, err := ParseAddress(hostPort + "/")
	if err != nil {
		t.Fatal(err)
	}
	var tried []string
	got, reached, err := Reach(t.Context(), a, func(ctx context.Context, a Address) (string, error) {
		tried = append(tried, a.Root)
		_, err := client.Get(ctx, a.Root, fetch.Conditional{})
		return a.Root, err
	})
	if want := []string{"https://" + hostPort + "/", "http://" + hostPort + "/"}; fmt.Sprint(tried) != fmt.Sprint(want) {
		t.Errorf("tried %q, want %q", tried, want)
	}
	if got != "https://"+hostPort+"/" || reached.FellBack || err == nil || !strings.Contains(err.Error(), "https://") {
		t.Errorf("kept %q, %+v, %v; want the https attempt and its error", got, reached, err)
	}
}

func TestNoConnection(t *testing.T) {
	refused := &fetch.FetchError{URL: "https://example.org/", Reason: "could not be fetched", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	for err, want := range map[error]string{
		refused: "the connection was refused",
		&fetch.FetchError{Err: &net.OpError{Op: "dial", Err: &fetch.AddressError{Address: "10.0.0.1", Kind: "a private address"}}}: "",
		&fetch.FetchError{Err: &net.DNSError{Err: "no such host", Name: "nowhere.example", IsNotFound: true}}:                      "",
		&fetch.FetchError{Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}}:                      "its secure connection failed",
		&fetch.FetchError{Err: x509.HostnameError{Host: "example.org", Certificate: &x509.Certificate{}}}:                          "its secure connection failed",
		&fetch.FetchError{Reason: "is disallowed for tidings by the site's robots.txt", Err: errors.New("disallowed")}:             "",
	} {
		if got := noConnection(err); got != want {
			t.Errorf("noConnection(%v) = %q, want %q", err, got, want)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestAddedAddressWithoutSchemeSaysWhichAnswered: the web's follow, a
// queued discovery, falls back as the command line's does, and its
// message says so; the site is stored over http.
func TestAddedAddressWithoutSchemeSaysWhichAnswered(t *testing.T) {
	site := fixturesite.New(time.Now())
	t.Cleanup(site.Close)
	store, s := realService(t)
	s.Start(t.Context())
	ann := user(t, store, "ann")
	hostPort := strings.TrimPrefix(site.URL, "http://")
	added, err := s.Add(t.Context(), ann.ID, hostPort)
	if err != nil {
		t.Fatal(err)
	}
	x := finished(t, store, added.Discovery.ID)
	if x.Status != db.DiscoveryFollowed || !strings.Contains(x.Message, "nothing answered at https://"+hostPort+"/ (the site answers plain http there), so tidings read "+site.URL+"/ instead") {
		t.Errorf("discovery %s: %q", x.Status, x.Message)
	}
	if _, err := store.SiteByURL(t.Context(), site.URL+"/"); err != nil {
		t.Errorf("the site is not stored over http: %v", err)
	}
	// Added again the same way, the site is known at once.
	s.Wait()
	bob := user(t, store, "bob")
	again, err := s.Add(t.Context(), bob.ID, hostPort+"/")
	if err != nil || again.Site.URL != site.URL+"/" || again.Discovery.ID != 0 {
		t.Errorf("adding it again: %+v, %v; want the site followed at once", again, err)
	}
}
