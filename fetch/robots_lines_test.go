package fetch

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestShortLines(t *testing.T) {
	long := strings.Repeat("a", maxRobotsLine+100)
	cut := long[:maxRobotsLine]
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"User-agent: *\nDisallow: /x\n", "User-agent: *\nDisallow: /x\n"},
		{cut + "\n" + cut, cut + "\n" + cut},
		{"User-agent: *\n" + long + "\r\nAllow: /\n", "User-agent: *\n" + cut + "\nAllow: /\n"},
		{long + "\n" + long, cut + "\n" + cut},
		{"\n\n" + long, "\n\n" + cut},
	} {
		if got := string(shortLines([]byte(tt.in))); got != tt.want {
			t.Errorf("shortLines of %d bytes: %d bytes %.30q…, want %d bytes", len(tt.in), len(got), got, len(tt.want))
		}
	}
	body := []byte("Disallow: /x\n")
	if got := shortLines(body); &got[0] != &body[0] {
		t.Error("a body without long lines was copied")
	}
}

// TestRobotsOfOneLongLine: a robots.txt of one 36 MB line is read to the
// file's cap, then kept and parsed a line's worth: the rule cut short
// disallows more, not less, and the copy kept is small.
func TestRobotsOfOneLongLine(t *testing.T) {
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			w.Write([]byte("ok"))
			return
		}
		w.Write([]byte("User-agent: *\nDisallow: /a"))
		for range 36_000_000 / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := NewClient(ClientOptions{AllowPrivate: true})
	ctx := context.Background()
	got, err := c.Robots(ctx, srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Body); n != len("User-agent: *\n")+maxRobotsLine {
		t.Errorf("kept %d bytes of robots.txt, want its first line and %d bytes of the second", n, maxRobotsLine)
	}
	if _, err := c.Get(ctx, srv.URL+"/"+strings.Repeat("a", 2*maxRobotsLine), Conditional{}); err == nil {
		t.Error("a path the cut rule begins was fetched")
	}
	if _, err := c.Get(ctx, srv.URL+"/b", Conditional{}); err != nil {
		t.Errorf("a path no rule names: %v", err)
	}
}

// TestRobotsParseOfOneLongLine: what a robots.txt of one line as long as
// the read's cap costs to keep and parse (it was 1.6 MB).
func TestRobotsParseOfOneLongLine(t *testing.T) {
	body := append([]byte("User-agent: *\nDisallow: /"), bytes.Repeat([]byte("a"), maxRobotsBytes-26)...)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e := robotsEntry{status: http.StatusOK, body: shortLines(body)}.parsed(time.Now())
	runtime.ReadMemStats(&after)
	if e.data == nil || e.cost() > 64<<10 {
		t.Fatalf("parsed %v, its cost %d bytes", e.data != nil, e.cost())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<10 {
		t.Errorf("keeping and parsing it allocated %d bytes, want under 256 KiB", alloc)
	}
}
