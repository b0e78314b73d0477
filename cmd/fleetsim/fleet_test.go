package main

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

var testShape = Shape{Collections: 2, Lists: 2, Entries: 20}

func TestSiteDocsDeterministic(t *testing.T) {
	a := siteDocs(7, 3, 1, testShape, "http://h", nil)
	b := siteDocs(7, 3, 1, testShape, "http://h", nil)
	if len(a) != 2+2*(1+1+2) {
		t.Fatalf("got %d documents, want 10", len(a))
	}
	for p, body := range a {
		if !bytes.Equal(body, b[p]) {
			t.Errorf("%s differs between two renderings with the same seed", p)
		}
	}
	c := siteDocs(8, 3, 1, testShape, "http://h", nil)
	if bytes.Equal(a["/c0/changes-0.xml"], c["/c0/changes-0.xml"]) {
		t.Error("another seed gave the same change list")
	}
	if n := strings.Count(string(a["/c0/changes-0.xml"]), "<url>"); n != 20 {
		t.Errorf("first change list has %d entries, want 20", n)
	}
	if n := strings.Count(string(a["/c1/changes-1.xml"]), "<url>"); n != 21 {
		t.Errorf("last change list after one mutation has %d entries, want 21", n)
	}
}

func TestMutateRate(t *testing.T) {
	f, err := StartFleet(1, 20, testShape, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !slices.Equal(f.Lines(), f.URLs()) {
		t.Errorf("a fleet of ResourceSync sites printed %v, not its bare URLs", f.Lines()[:2])
	}
	before := snapshot(f)
	changed := f.Mutate(0.25)
	if len(changed) != 5 {
		t.Fatalf("mutate 0.25 of 20 sites changed %d, want 5", len(changed))
	}
	after := snapshot(f)
	n := 0
	for i := range f.sites {
		if before[i] != after[i] {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d sites' documents changed, want 5", n)
	}
	if got := mutated(1, 1, 20, 0.25); !equalSets(got, changed) {
		t.Errorf("the same seed and cycle chose %v, then %v", changed, got)
	}
}

func TestConditionalAndStats(t *testing.T) {
	f, err := StartFleet(1, 2, testShape, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := f.URLs()[1] + "c0/changes-1.xml"
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.StatusCode != 200 || etag == "" || lm == "" {
		t.Fatalf("got %d, ETag %q, Last-Modified %q", resp.StatusCode, etag, lm)
	}
	for _, h := range [][2]string{{"If-None-Match", etag}, {"If-Modified-Since", lm}} {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set(h[0], h[1])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("with %s: got %d, want 304", h[0], resp.StatusCode)
		}
	}
	// A handler counts its request once it has answered, so the client
	// may see the answer before the count: wait for it.
	st := f.Stats()
	for deadline := time.Now().Add(5 * time.Second); st.Requests < 3 && time.Now().Before(deadline); st = f.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	if st.Requests != 3 || st.NotModified != 2 || st.Bytes != int64(len(f.sites[1].docs["/c0/changes-1.xml"].body)) {
		t.Errorf("stats %+v", st)
	}
}

func snapshot(f *Fleet) []string {
	out := make([]string, len(f.sites))
	for i, s := range f.sites {
		s.mu.RLock()
		out[i] = s.docs["/c1/changes-1.xml"].etag
		s.mu.RUnlock()
	}
	return out
}

func equalSets(a, b []int) bool {
	m := map[int]bool{}
	for _, v := range a {
		m[v] = true
	}
	for _, v := range b {
		if !m[v] {
			return false
		}
	}
	return len(a) == len(b)
}

func TestRobotsPadding(t *testing.T) {
	plain := siteDocs(1, 0, 0, testShape, "http://h", nil)["/robots.txt"]
	if string(plain) != "User-agent: *\nDisallow: /private/\n" {
		t.Errorf("unpadded robots.txt = %q", plain)
	}
	sh := testShape
	sh.RobotsBytes = 4096
	a := siteDocs(1, 0, 0, sh, "http://h", nil)["/robots.txt"]
	b := siteDocs(1, 1, 0, sh, "http://h", nil)["/robots.txt"]
	if len(a) < 4096 || len(a) > 4096+40 {
		t.Errorf("padded robots.txt is %d bytes, want 4096 or a line more", len(a))
	}
	if &a[0] != &b[0] {
		t.Error("two sites hold their own copy of the padded robots.txt")
	}
	for _, line := range strings.Split(strings.TrimSpace(string(a)), "\n")[1:] {
		if !strings.HasPrefix(line, "Disallow: /private/") {
			t.Fatalf("padding line %q disallows more than /private/", line)
		}
	}
}
