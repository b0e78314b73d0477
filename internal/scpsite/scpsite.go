// Package scpsite generates SCP collections (JSON Lines, gzip or zstd, with
// checksums by either rule) and serves them, with a sitemap, on loopback
// for tests. Everything is made by the tests themselves: no fixture file.
package scpsite

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Checksum rules a generator may follow (see scpbridge's checksum).
const (
	NoChecksum = iota
	ChecksumWithoutField
	ChecksumAfterMetadata
	ChecksumWrong
)

// Meta is the metadata line's "collection" object; nil fields are left out.
type Meta map[string]any

// Page is one page line; a test may set any field, or leave required ones
// out.
type Page map[string]any

// NewPage returns a valid page.
func NewPage(url, title, desc string, modified time.Time) Page {
	return Page{
		"url": url, "title": title, "description": desc, "modified": modified.UTC().Format(time.RFC3339),
		"language": "en", "author": "Ann Example",
		"content": []any{
			map[string]any{"type": "heading", "level": 1, "text": title},
			map[string]any{"type": "text", "text": "Body of " + title},
		},
	}
}

// Marshal returns v as one compact JSON line without a newline; a []byte
// or string is taken as the line itself.
func Marshal(v any) []byte {
	switch t := v.(type) {
	case []byte:
		return t
	case string:
		return []byte(t)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// File builds a decompressed collection: the metadata line (when meta is
// not nil) with a checksum by rule, then one line per item (a Page, or raw
// bytes/strings for broken lines), each ended by "\n".
func File(meta Meta, rule int, items ...any) []byte {
	var body bytes.Buffer
	for _, it := range items {
		body.Write(Marshal(it))
		body.WriteByte('\n')
	}
	if meta == nil {
		return body.Bytes()
	}
	m := Meta{}
	for k, v := range meta {
		m[k] = v
	}
	delete(m, "checksum")
	line := Marshal(map[string]any{"collection": m})
	var sum [32]byte
	switch rule {
	case NoChecksum:
		return append(append(line, '\n'), body.Bytes()...)
	case ChecksumWithoutField:
		sum = sha256.Sum256(append(append(bytes.Clone(line), '\n'), body.Bytes()...))
	case ChecksumAfterMetadata:
		sum = sha256.Sum256(body.Bytes())
	case ChecksumWrong:
		sum = sha256.Sum256([]byte("something else"))
	}
	// encoding/json sorts map keys, so "checksum" lands where a generator
	// writing it into the same object would put it.
	m["checksum"] = "sha256:" + hex.EncodeToString(sum[:])
	return append(append(Marshal(map[string]any{"collection": m}), '\n'), body.Bytes()...)
}

// Gzip compresses b.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// Zstd compresses b.
func Zstd(b []byte) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// Site serves documents on loopback and counts what it was asked and sent.
type Site struct {
	*httptest.Server

	mu       sync.Mutex
	docs     map[string]doc
	handlers map[string]http.Handler
	requests map[string]int
	sent     map[string]int64
}

type doc struct {
	body        []byte
	contentType string
}

// New starts a Site; Close it when done.
func New() *Site {
	s := &Site{docs: map[string]doc{}, handlers: map[string]http.Handler{}, requests: map[string]int{}, sent: map[string]int64{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Set serves body at path.
func (s *Site) Set(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = doc{body: body, contentType: contentType(path)}
}

// SetText serves text at path with {{.Base}} replaced.
func (s *Site) SetText(path, text string) {
	s.Set(path, []byte(strings.ReplaceAll(text, "{{.Base}}", s.URL)))
}

// Remove makes path answer 404.
func (s *Site) Remove(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.docs, path)
	delete(s.handlers, path)
}

// Handle serves path with h.
func (s *Site) Handle(path string, h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[path] = h
}

// Requests counts the requests for path.
func (s *Site) Requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// Sent counts the body bytes written for path, over all its requests.
func (s *Site) Sent(path string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent[path]
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests[r.URL.Path]++
	d, ok := s.docs[r.URL.Path]
	h := s.handlers[r.URL.Path]
	s.mu.Unlock()
	cw := &countingWriter{ResponseWriter: w, s: s, path: r.URL.Path}
	if h != nil {
		h.ServeHTTP(cw, r)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, sha256.Sum256(d.body))
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", d.contentType)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	cw.Write(d.body)
}

type countingWriter struct {
	http.ResponseWriter
	s    *Site
	path string
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.s.mu.Lock()
	c.s.sent[c.path] += int64(n)
	c.s.mu.Unlock()
	return n, err
}

func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func contentType(p string) string {
	switch {
	case strings.HasSuffix(p, ".scp.gz"):
		return "application/x-ndjson+gzip"
	case strings.HasSuffix(p, ".scp.zst"):
		return "application/x-ndjson+zstd"
	case strings.HasSuffix(p, ".xml"):
		return "application/xml"
	case strings.HasSuffix(p, ".txt"):
		return "text/plain; charset=utf-8"
	case strings.HasSuffix(p, ".html"), strings.HasSuffix(p, "/"):
		return "text/html; charset=utf-8"
	}
	return "application/octet-stream"
}

// Repeat serves chunk n times in a row as one body (concatenated gzip
// members or zstd frames are one valid stream), so a file far larger than
// memory can be served, and stops when the client goes away.
func Repeat(chunk []byte, n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(len(chunk)*n))
		for range n {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

// Sitemap renders a <urlset> with the scp: extension (bound to prefix) and
// the given inner elements.
func Sitemap(prefix string, inner ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:` + prefix + `="https://scp-protocol.org/schemas/sitemap/1.0">
` + strings.Join(inner, "\n") + `
</urlset>`
}

// Element renders an scp: element with attributes in the given order
// (name, value, name, value, ...).
func Element(prefix, name string, attrs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<%s:%s", prefix, name)
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&b, ` %s="%s"`, attrs[i], attrs[i+1])
	}
	b.WriteString("/>")
	return b.String()
}
