package main

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// field is one header field as a handler sets it.
type field struct {
	name   string // canonical
	values []string
}

// bareResponse is what a bare handler answers: the header fields of its
// 200 and of its 304.
type bareResponse struct{ ok, notModified []field }

// fieldsOf lists the header fields of a response, less Date, which
// net/http writes itself.
func fieldsOf(h http.Header) []field {
	var out []field
	for name, values := range h {
		if name != "Date" {
			out = append(out, field{name, slices.Clip(values)})
		}
	}
	return out
}

// leastResponse is the least a cache-friendly answer carries.
func leastResponse(length int, etag string) bareResponse {
	tag := field{"Etag", []string{etag}}
	return bareResponse{
		ok: []field{tag, {"Content-Type", []string{"application/atom+xml; charset=utf-8"}},
			{"Content-Length", []string{strconv.Itoa(length)}}},
		notModified: []field{tag},
	}
}

// startBare serves body from memory, answering If-None-Match: etag with
// 304, and sets resp's header fields the cheapest way (prepared values
// under canonical names). Its http.Server has serve's timeouts.
func startBare(body []byte, etag string, resp bareResponse) (*http.Server, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			if r.Header.Get("If-None-Match") == etag {
				for _, f := range resp.notModified {
					h[f.name] = f.values
				}
				w.WriteHeader(http.StatusNotModified)
				return
			}
			for _, f := range resp.ok {
				h[f.name] = f.values
			}
			w.Write(body)
		}),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
	}
	go srv.Serve(ln)
	return srv, "http://" + ln.Addr().String() + "/feed.atom", nil
}
