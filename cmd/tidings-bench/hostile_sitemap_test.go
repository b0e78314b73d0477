package main

import (
	"bytes"
	"testing"

	"tidings/hints"
	"tidings/sitemap"
)

func TestSitemapDoc(t *testing.T) {
	var b bytes.Buffer
	doc := sitemapDoc{base: "http://h", entries: 3, longLoc: 3000, at: testAt}
	if err := doc.write(&b); err != nil {
		t.Fatal(err)
	}
	parsed, err := sitemap.Parse(&b, sitemap.Options{Scope: "http://h/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.URLs) != 3 || parsed.URLs[2].Loc != "http://h/pages/2.html" || parsed.Skipped.Invalid != 1 {
		t.Errorf("URLs %+v, skipped %+v; want 3 and the long one invalid", parsed.URLs, parsed.Skipped)
	}
}

// TestLongLocRobots: the robots.txt of the attack is one line of 36 MB
// whose Sitemap field a reader of lines finds.
func TestLongLocRobots(t *testing.T) {
	docs := longLocSite(testAt)("http://h")
	w := &headWriter{head: make([]byte, 0, 200)}
	if err := docs["/robots.txt"].write(w); err != nil {
		t.Fatal(err)
	}
	if w.n != robotsLineBytes || w.newlines != 0 {
		t.Fatalf("%d bytes, %d line ends; want one line of %d", w.n, w.newlines, robotsLineBytes)
	}
	if got := hints.RobotsSitemaps(bytes.NewReader(w.head), "http://h/robots.txt"); len(got) != 1 || got[0] != "http://h/sitemap.xml" {
		t.Errorf("its sitemaps %q", got)
	}
	if _, ok := docs["/pages/2.html"]; !ok {
		t.Error("the pages the sitemap lists are not served")
	}
}

// headWriter keeps what fits in head's capacity and counts the rest.
type headWriter struct {
	head     []byte
	n        int64
	newlines int
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.newlines += bytes.Count(p, []byte("\n"))
	w.head = append(w.head, p[:min(len(p), cap(w.head)-len(w.head))]...)
	return len(p), nil
}
