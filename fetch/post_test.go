package fetch

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPostSendsBodyAndHeaders: Post sends the body as the type given,
// with the caller's headers beside the client's own.
func TestPostSendsBodyAndHeaders(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, body = r, string(b)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	code, err := c.Post(context.Background(), srv.URL+"/hook", "application/json", []byte(`{"a":1}`), http.Header{"X-Sig": {"s"}})
	if err != nil || code != http.StatusAccepted {
		t.Fatalf("Post = %d, %v", code, err)
	}
	if body != `{"a":1}` || got.Header.Get("Content-Type") != "application/json" || got.Header.Get("X-Sig") != "s" || got.Header.Get("User-Agent") != "tidings/test" {
		t.Errorf("received %q with %v", body, got.Header)
	}
}

// TestHTTPClientKeepsThePolicyAndCapsAnswers: the client handed to a
// library refuses loopback like the others, and cuts a long answer.
func TestHTTPClientKeepsThePolicyAndCapsAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 3<<20))
	}))
	defer srv.Close()
	strict := NewClient(ClientOptions{UserAgent: "tidings/test"}).HTTPClient()
	if _, err := strict.Get(srv.URL); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("Get through a strict client's HTTPClient: %v, want a refusal", err)
	}
	open := NewClient(ClientOptions{UserAgent: "tidings/test", AllowPrivate: true}).HTTPClient()
	resp, err := open.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if len(b) != maxLibraryAnswer {
		t.Errorf("read %d bytes, want the cap %d", len(b), maxLibraryAnswer)
	}
}
