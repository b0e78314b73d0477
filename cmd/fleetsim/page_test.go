package main

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

var paraRE = regexp.MustCompile(`<p class="body-text">[^<]*</p>`)

func TestPageHTML(t *testing.T) {
	a := pageHTML(7, 3, 1, 42, 0, "http://h")
	if !bytes.Equal(a, pageHTML(7, 3, 1, 42, 0, "http://h")) {
		t.Fatal("the same arguments gave two pages")
	}
	if n := len(a); n < pageSize-2<<10 || n > pageSize+2<<10 {
		t.Errorf("page is %d bytes, want about %d", n, pageSize)
	}
	for _, part := range []string{"<title>", "<nav", "<aside", "<h1", "<h2", "<script>", "<style>", "<footer"} {
		if !bytes.Contains(a, []byte(part)) {
			t.Errorf("page has no %s", part)
		}
	}
	if bytes.Equal(paraRE.Find(a), paraRE.Find(pageHTML(7, 3, 1, 43, 0, "http://h"))) {
		t.Error("two pages begin with the same paragraph")
	}
	// A revision rewrites a few paragraphs and keeps the rest, as an
	// edit does, so that the diff tidings stores is small.
	for v := 1; v <= 3; v++ {
		before := paraRE.FindAll(pageHTML(7, 3, 1, 42, v-1, "http://h"), -1)
		after := paraRE.FindAll(pageHTML(7, 3, 1, 42, v, "http://h"), -1)
		if len(before) != len(after) {
			t.Fatalf("version %d has %d paragraphs, version %d has %d", v-1, len(before), v, len(after))
		}
		changed := 0
		for k := range before {
			if !bytes.Equal(before[k], after[k]) {
				changed++
			}
		}
		if changed != revisedParas {
			t.Errorf("version %d changed %d paragraphs, want %d", v, changed, revisedParas)
		}
	}
}

func TestPagesServedAndRevised(t *testing.T) {
	sh := Shape{Collections: 2, Lists: 1, Entries: 30, Pages: 20}
	f, err := StartFleet(1, 3, sh, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	list := string(f.sites[0].docs["/c1/changes-0.xml"].body)
	if c, u := strings.Count(list, `change="created"`), strings.Count(list, `change="updated"`); c != 20 || u != 10 {
		t.Errorf("list has %d created and %d updated entries, want 20 and 10", c, u)
	}
	page := f.URLs()[0] + "c1/pages/000007.html"
	get := func(etag string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", page, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, body := get("")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || len(body) < pageSize/2 {
		t.Fatalf("got %d, ETag %q, %d bytes", resp.StatusCode, etag, len(body))
	}
	if resp, _ := get(etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("with its ETag: got %d, want 304", resp.StatusCode)
	}
	if n := f.Revise(0.25); n != 3*10 {
		t.Errorf("revise 0.25 of 40 pages on 3 sites changed %d, want 30", n)
	}
	if urls := f.Revised(); len(urls) != 30 || !strings.HasPrefix(urls[0], f.sites[0].base+"/c") {
		t.Errorf("revised pages %v", urls)
	}
	revised := 0
	for p := range 20 {
		for c := range 2 {
			revised += f.sites[0].versions[pageKey{c, p}]
		}
	}
	list = string(f.sites[0].docs["/c0/changes-0.xml"].body) + string(f.sites[0].docs["/c1/changes-0.xml"].body)
	if u := strings.Count(list, `change="updated"`); revised != 10 || u != 20+10 {
		t.Errorf("%d pages revised, %d updated entries; want 10 and 30", revised, u)
	}
	if f.sites[0].versions[pageKey{1, 7}] > 0 {
		if resp, _ := get(etag); resp.StatusCode != 200 {
			t.Errorf("revised page with its old ETag: got %d, want 200", resp.StatusCode)
		}
	}
	if resp, _ := get(""); resp.StatusCode != 200 {
		t.Errorf("got %d", resp.StatusCode)
	}
	for _, p := range []string{"c1/pages/000020.html", "c2/pages/000001.html", "c0/pages/1.html"} {
		resp, err := http.Get(f.URLs()[0] + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: got %d, want 404", p, resp.StatusCode)
		}
	}
	// The count of the last request may land after its answer is read.
	if st := f.Stats(); st.Pages < 2 {
		t.Errorf("stats counted %d page requests", st.Pages)
	}
}
