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

// hostileSite serves its answers on a loopback port of its own, so that
// what tidings discovers on one site cannot lead it to another's. It
// counts the requests it was sent and the bytes it wrote, and answers no
// more than maxSiteRequests: a crawler gone wrong stops there, and the row
// says so.
type hostileSite struct {
	base     string // http://127.0.0.1:port, no trailing slash
	srv      *http.Server
	handler  http.HandlerFunc
	requests atomic.Int64
	bytes    atomic.Int64
	refused  atomic.Int64 // requests past maxSiteRequests
	// first and last are when the first request came and the last
	// answer ended, in Unix nanoseconds: how long tidings kept at it.
	first, last atomic.Int64
}

// maxSiteRequests bounds the requests a hostile site answers.
const maxSiteRequests = 1000

// startHostileSite listens on loopback and serves the documents docs
// returns for the site's base URL; every other path is 404.
func startHostileSite(docs func(base string) map[string]hostileDoc) (*hostileSite, error) {
	return startSite(func(base string) http.HandlerFunc { return docsHandler(docs(base)) })
}

// startSite listens on loopback and answers with the handler made for the
// site's base URL.
func startSite(handler func(base string) http.HandlerFunc) (*hostileSite, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("hostile site: %w", err)
	}
	s := &hostileSite{base: "http://" + ln.Addr().String()}
	s.handler = handler(s.base)
	// WriteTimeout bounds a document tidings stops reading without
	// closing the connection.
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 5 * time.Minute}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *hostileSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.first.CompareAndSwap(0, time.Now().UnixNano())
	defer func() { s.last.Store(time.Now().UnixNano()) }()
	if s.requests.Add(1) > maxSiteRequests {
		s.refused.Add(1)
		http.Error(w, "too many requests for a benchmark", http.StatusServiceUnavailable)
		return
	}
	s.handler(&countingResponse{ResponseWriter: w, n: &s.bytes}, r)
}

// docsHandler serves docs by path; every other path is 404.
func docsHandler(docs map[string]hostileDoc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.contentType)
		// An error is tidings closing the connection: refusing the rest
		// is what a hardened reader does.
		_ = d.write(w)
	}
}

func (s *hostileSite) close() { s.srv.Close() }

// sent is how many bytes of answers the site has written: what tidings
// read, and what the sockets' buffers held when it stopped reading.
func (s *hostileSite) sent() int64 { return s.bytes.Load() }

// busy is the time from the site's first request to the end of its last
// answer.
func (s *hostileSite) busy() time.Duration {
	first, last := s.first.Load(), s.last.Load()
	if first == 0 || last < first {
		return 0
	}
	return time.Duration(last - first)
}

// reset forgets what the site has counted.
func (s *hostileSite) reset() {
	for _, n := range []*atomic.Int64{&s.requests, &s.bytes, &s.refused, &s.first, &s.last} {
		n.Store(0)
	}
}

// countingResponse adds what is written to n as it is written, so that
// an endless answer is counted while it runs.
type countingResponse struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingResponse) Write(p []byte) (int, error) {
	k, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// Flush sends what was written so far: a dripping page needs it.
func (c *countingResponse) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
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

// bounded reports whether the site answered every request it was sent.
func (s *hostileSite) bounded() bool { return s.refused.Load() == 0 }

// note says, for a row, that tidings asked more than the site answers.
func (s *hostileSite) note() string {
	if n := s.refused.Load(); n > 0 {
		return fmt.Sprintf(", %d requests past the site's bound of %d refused", n, maxSiteRequests)
	}
	return ""
}
