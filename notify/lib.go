package notify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/nicholas-fedor/shoutrrr/pkg/types"

	"tidings/fetch"
)

// sendLib sends through shoutrrr's service, handed tidings' client with
// oneRequest in front: the message is one request and the redirects it
// is sent on, every connection judged by the address policy.
func (n *Notifier) sendLib(ctx context.Context, t target, p push) error {
	hc := n.opts.Client.HTTPClient()
	hc.Timeout = n.opts.SendTimeout
	g := &oneRequest{ctx: ctx, next: hc.Transport}
	hc.Transport = g
	svc, err := t.svc.lib(t.u, hc)
	if err != nil {
		return permanent{fmt.Errorf("%s cannot be sent to: %v", redactURL(t.raw), err)}
	}
	done := make(chan error, 1)
	go func() { done <- svc.Send(p.Text, &types.Params{"title": p.Title}) }()
	select {
	case err := <-done:
		return g.outcome(t.raw, err)
	case <-ctx.Done():
		// shoutrrr takes no context: oneRequest starts nothing more, and
		// the client's timeout ends the request under way.
		return ctx.Err()
	}
}

// oneRequest lets a library make one request, and follow its redirects,
// for one message: the hourly limits count attempts, and a library's own
// retries would multiply the connections each one opens. It keeps what
// came of the request, so that errors read the same whatever the
// library, and carry none of the secrets its URLs hold.
type oneRequest struct {
	ctx  context.Context
	next http.RoundTripper

	mu      sync.Mutex
	made    bool
	urls    []string // requested, to be kept out of errors
	status  string   // of the last answer
	code    int
	dialErr error // of the last request that got no answer
}

// errOneRequest refuses a library's second request for one message.
var errOneRequest = errors.New("tidings makes one request a message and retries it later itself")

func (g *oneRequest) RoundTrip(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	// A redirect carries the answer that caused it; a retry does not.
	refuse := (g.made && req.Response == nil) || g.ctx.Err() != nil
	g.made = true
	g.urls = append(g.urls, req.URL.String())
	g.mu.Unlock()
	if refuse {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, errOneRequest
	}
	resp, err := g.next.RoundTrip(req)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err != nil {
		g.dialErr = err
		return nil, err
	}
	g.code, g.status = resp.StatusCode, resp.Status
	return resp, nil
}

// outcome is what a send that returned err comes to, said of the
// notification URL raw: its refusal or answer when the request had one,
// else the library's error with the URLs it requested hidden.
func (g *oneRequest) outcome(raw string, err error) error {
	if err == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	where := redactURL(raw)
	var ae *fetch.AddressError
	switch {
	case errors.As(g.dialErr, &ae):
		return permanent{&fetch.FetchError{URL: where, Reason: ae.Error(), Err: g.dialErr}}
	case g.dialErr != nil:
		return &fetch.FetchError{URL: where, Reason: "could not be reached: " + g.scrub(g.dialErr.Error()), Err: g.dialErr}
	case g.code >= 300:
		fe := &fetch.FetchError{URL: where, Status: g.code, Reason: "answered " + g.status}
		if fetch.Transient(fe) || g.code == http.StatusRequestTimeout {
			return fe
		}
		return permanent{fe}
	}
	return fmt.Errorf("%s: %s", where, g.scrub(err.Error()))
}

// scrub hides in s the URLs requested, which carry tokens and keys.
func (g *oneRequest) scrub(s string) string {
	for _, u := range g.urls {
		s = strings.ReplaceAll(s, u, "(the service's address)")
	}
	return s
}
