package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// hostileDoc is one document of a hostile site, generated as it is sent.
type hostileDoc struct {
	contentType string
	write       func(io.Writer) error
}

// hostileSite serves its documents on a loopback port of its own, so that
// what tidings discovers on one site cannot lead it to another's.
type hostileSite struct {
	base     string // http://127.0.0.1:port, no trailing slash
	srv      *http.Server
	docs     map[string]hostileDoc
	requests atomic.Int64
	bytes    atomic.Int64
}

// startHostileSite listens on loopback and serves the documents docs
// returns for the site's base URL; every other path is 404.
func startHostileSite(docs func(base string) map[string]hostileDoc) (*hostileSite, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("hostile site: %w", err)
	}
	s := &hostileSite{base: "http://" + ln.Addr().String()}
	s.docs = docs(s.base)
	// WriteTimeout bounds a document tidings stops reading without
	// closing the connection.
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 5 * time.Minute}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *hostileSite) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	d, ok := s.docs[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", d.contentType)
	cw := &countingWriter{w: w}
	// An error is tidings closing the connection: refusing the rest is
	// what a hardened reader does.
	_ = d.write(cw)
	s.bytes.Add(cw.n)
}

func (s *hostileSite) close() { s.srv.Close() }

// sent is how many bytes of documents the site has sent.
func (s *hostileSite) sent() int64 { return s.bytes.Load() }

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// resourceSyncDocs is a ResourceSync site (IFCC-0001) whose capability
// list names changeList, plus the documents more adds.
func resourceSyncDocs(base, changeList string, more map[string]hostileDoc) map[string]hostileDoc {
	const xml = "application/xml"
	docs := map[string]hostileDoc{
		"/.well-known/resourcesync": {xml, func(w io.Writer) error { return writeSourceDescription(w, base) }},
		"/cap.xml":                  {xml, func(w io.Writer) error { return writeCapabilityList(w, base, changeList) }},
	}
	for p, d := range more {
		docs[p] = d
	}
	return docs
}
