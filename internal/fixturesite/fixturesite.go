// Package fixturesite serves a small ResourceSync site on loopback for
// tests: a Source Description Index, two Source Descriptions, capability
// lists, a change list index with from/until, plain and gzip'd change lists.
// It answers conditional requests and logs every request it receives.
package fixturesite

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"
	"text/template"
	"time"
)

//go:embed all:files
var files embed.FS

// Site is a running fixture site.
type Site struct {
	*httptest.Server
	Now time.Time // the time the dates in the documents are relative to

	mu       sync.Mutex
	docs     map[string][]byte
	requests []string
	answers  []Answer
	statuses map[string]int
	delay    time.Duration
	inFlight int
	overlaps int
}

// Answer is one request the site answered: its path, its status and
// whether it carried a validator (If-None-Match or If-Modified-Since).
type Answer struct {
	Path        string
	Status      int
	Conditional bool
}

// New starts the fixture site; its documents' dates are relative to now.
// Close it when done.
func New(now time.Time) *Site {
	s := &Site{Now: now.UTC(), docs: map[string][]byte{}, statuses: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	err := fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		s.Set(strings.TrimPrefix(p, "files"), string(raw))
		return nil
	})
	if err != nil {
		panic(err)
	}
	return s
}

// render expands {{.Base}} (the site's URL), {{ago "48h"}} (a W3C datetime
// that long before Now) and {{agodate "48h"}} (the same as a date only).
func (s *Site) render(text string) []byte {
	funcs := template.FuncMap{
		"ago": func(d string) string {
			return s.Now.Add(-mustDuration(d)).Format(time.RFC3339)
		},
		"agodate": func(d string) string {
			return s.Now.Add(-mustDuration(d)).Format("2006-01-02")
		},
	}
	t := template.Must(template.New("doc").Funcs(funcs).Parse(text))
	var buf bytes.Buffer
	if err := t.Execute(&buf, struct{ Base string }{s.URL}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func mustDuration(d string) time.Duration {
	v, err := time.ParseDuration(d)
	if err != nil {
		panic(err)
	}
	return v
}

// Set replaces (or adds) the document at path; text is rendered as the
// embedded documents are.
func (s *Site) Set(path, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = s.render(text)
}

// Get returns the document at path as served, or "".
func (s *Site) Get(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.docs[path])
}

// Remove deletes the document at path: it then answers 404.
func (s *Site) Remove(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.docs, path)
}

// Fail makes path answer with status code (0 restores it).
func (s *Site) Fail(path string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses[path] = code
}

// SetDelay makes every later request wait d before it is answered (0
// answers at once), so a harvest of the site takes a known time. A request
// whose client goes away stops waiting.
func (s *Site) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Requests counts the requests received for path.
func (s *Site) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		if r == path {
			n++
		}
	}
	return n
}

// Answers returns every request answered, in order.
func (s *Site) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Answer(nil), s.answers...)
}

// Overlaps counts the requests that arrived while another was being
// answered: a polite client, one request to a host at a time, makes none.
func (s *Site) Overlaps() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overlaps
}

// Log returns every request path received, in order.
func (s *Site) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	s.mu.Lock()
	s.inFlight++
	if s.inFlight > 1 {
		s.overlaps++
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		cond := r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != ""
		s.answers = append(s.answers, Answer{Path: r.URL.Path, Status: sw.status, Conditional: cond})
		s.mu.Unlock()
	}()
	s.answer(sw, r)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *Site) answer(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.Path)
	code := s.statuses[r.URL.Path]
	body, ok := s.docs[r.URL.Path]
	delay := s.delay
	gz := false
	if !ok && strings.HasSuffix(r.URL.Path, ".gz") {
		body, ok = s.docs[strings.TrimSuffix(r.URL.Path, ".gz")]
		gz = true
	}
	s.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if code != 0 {
		http.Error(w, http.StatusText(code), code)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	if gz {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
	}
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256(body))
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", contentType(r.URL.Path))
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(body)
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".gz":
		// Served as a file, not with Content-Encoding, as static hosts do.
		return "application/gzip"
	case ".txt":
		return "text/plain; charset=utf-8"
	}
	return "application/xml"
}
