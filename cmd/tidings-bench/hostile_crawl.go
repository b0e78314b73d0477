package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The sites of issue 25 ("Hardening, round three"), items 1 to 4: what
// the public check and the crawl of a site that publishes nothing meet.
// Each answers as it goes: an endless page is written until tidings stops
// reading it, never built whole.
const (
	cannonLinks  = 20 // endless pages, and as many endless files
	dripPages    = 5
	dripEvery    = 2 * time.Second
	sessionPages = 10
)

// homePage writes an HTML home page linking links.
func homePage(w http.ResponseWriter, title string, links []string) {
	w.Header().Set("Content-Type", "text/html")
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><title>%s</title><p>The home page.</p>\n", title)
	for _, l := range links {
		fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", l, l)
	}
	w.Write([]byte(b.String()))
}

// endless writes chunk until tidings goes away.
func endless(w http.ResponseWriter, r *http.Request, chunk []byte) {
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

// cannonSite links 20 endless HTML pages and 20 endless files: a check
// or a crawl that reads what it is sent becomes a download cannon aimed
// at whoever the site names.
func cannonSite(string) http.HandlerFunc {
	return endlessLinks("Cannon", cannonLinks, cannonLinks)
}

// endlessLinks is a home page linking pages endless HTML pages and files
// endless files.
func endlessLinks(title string, pages, files int) http.HandlerFunc {
	var links []string
	for i := range max(pages, files) {
		if i < pages {
			links = append(links, fmt.Sprintf("/page%d.html", i))
		}
		if i < files {
			links = append(links, fmt.Sprintf("/file%d", i))
		}
	}
	page := []byte("<p>" + strings.Repeat("words of an endless page ", 400) + "</p>\n")
	file := bytes.Repeat([]byte{0, 1, 2, 3}, 2500)
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			homePage(w, title, links)
		case strings.HasPrefix(r.URL.Path, "/page"):
			w.Header().Set("Content-Type", "text/html")
			endless(w, r, page)
		case strings.HasPrefix(r.URL.Path, "/file"):
			w.Header().Set("Content-Type", "application/octet-stream")
			endless(w, r, file)
		default:
			http.NotFound(w, r)
		}
	}
}

// dripSite links five pages that send their headers, then a byte every
// two seconds for as long as anyone reads.
func dripSite(string) http.HandlerFunc {
	var links []string
	for i := range dripPages {
		links = append(links, fmt.Sprintf("/slow%d.html", i))
	}
	return func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			homePage(w, "Drip", links)
		case strings.HasPrefix(r.URL.Path, "/slow"):
			drip(w, r, dripEvery)
		default:
			http.NotFound(w, r)
		}
	}
}

// drip sends an HTML answer's headers, then a byte every so often for as
// long as anyone reads.
func drip(w http.ResponseWriter, r *http.Request, every time.Duration) {
	w.Header().Set("Content-Type", "text/html")
	fl, _ := w.(http.Flusher)
	for {
		if _, err := w.Write([]byte(" ")); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(every):
		}
	}
}

// sessionSite is ten pages whose every link carries a new session id, in
// each of the ways sites write one: ;jsessionid=, ?PHPSESSID= and a /s/ID/
// path segment.
func sessionSite(string) http.HandlerFunc {
	var n atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			homePage(w, "Sessions", []string{"/p0.html"})
			return
		}
		path, _, _ := strings.Cut(r.URL.Path, ";")
		i := strings.LastIndex(path, "/p")
		if i < 0 || !strings.HasSuffix(path, ".html") {
			http.NotFound(w, r)
			return
		}
		page := strings.TrimSuffix(path[i+2:], ".html")
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><title>Page %s</title><p>The text of page %s.</p>\n", page, page)
		for p := range sessionPages {
			k := n.Add(1)
			fmt.Fprintf(&b, `<a href="/p%d.html;jsessionid=%032x">a</a> <a href="/p%d.html?PHPSESSID=%032x">b</a> <a href="/s/a1b2c3d4e5f6%010d/p%d.html">c</a>`+"\n", p, k, p, k, k, p)
		}
		w.Write([]byte(b.String()))
	}
}

// soft404Site answers every address with 200 and made-up text linking
// five more made-up addresses, robots.txt and sitemap.xml included, as a
// site whose "not found" page is a page does.
func soft404Site(string) http.HandlerFunc {
	var n atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			homePage(w, "Shrine", []string{"/a.html", "/b.html", "/c.html"})
			return
		}
		k := n.Add(1)
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><title>Shrine</title><p>Made-up text number %d.</p>\n", k)
		for i := range 5 {
			fmt.Fprintf(&b, "<a href=\"/x%d-%d.html\">more</a>\n", k, i)
		}
		w.Write([]byte(b.String()))
	}
}
