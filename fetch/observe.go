package fetch

import "context"

// Fetched is one request as an observer hears of it: made and answered,
// or refused before it was made (by the address policy or robots.txt).
type Fetched struct {
	URL         string
	Status      int // the HTTP status; 0 when no answer came
	NotModified bool
	Bytes       int64 // the body's bytes after decompression (Get only)
	Err         error // why it failed, phrased for people; nil on a 2xx or 304
}

type observerKey struct{}

// WithObserver returns a context under which every request a Client makes
// is told to fn when it ends (a streamed download when its answer's
// headers arrive). The client is shared by every harvest of a server, so
// what one caller wants to hear of travels with its context, not with
// the client. An observer ctx carries already hears the requests too, so
// that a caller watching whether a site answers may run a check that
// lists what it fetched. fn may be called from several goroutines at
// once.
func WithObserver(ctx context.Context, fn func(Fetched)) context.Context {
	if outer, ok := ctx.Value(observerKey{}).(func(Fetched)); ok {
		inner := fn
		fn = func(f Fetched) {
			inner(f)
			outer(f)
		}
	}
	return context.WithValue(ctx, observerKey{}, fn)
}

// observe tells the context's observer, if any, of one request.
func observe(ctx context.Context, rawURL string, status int, notModified bool, n int64, err error) {
	fn, ok := ctx.Value(observerKey{}).(func(Fetched))
	if !ok {
		return
	}
	f := Fetched{URL: rawURL, Status: status, NotModified: notModified, Bytes: n, Err: err}
	if fe, ok := err.(*FetchError); ok && fe.Status != 0 {
		f.Status = fe.Status
	}
	fn(f)
}

// gotBody is the body of r, nil when there is none.
func gotBody(r *Response) []byte {
	if r == nil {
		return nil
	}
	return r.Body
}
