package follow

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"

	"tidings/fetch"
	"tidings/harvest"
)

// Address is an address a person gave, normalised once: the root of its
// site and the page given. Bare: it was typed without its scheme
// ("example.org/"), so https is assumed, and http is tried should nothing
// answer over https.
type Address struct {
	Root, Input string
	Bare        bool
}

// ParseAddress normalises what a person typed, or says why it is not an
// address tidings can follow.
func ParseAddress(raw string) (Address, error) {
	root, input, err := harvest.NormalizeAddress(raw)
	if err != nil {
		return Address{}, err
	}
	return Address{Root: root, Input: input, Bare: !strings.Contains(strings.TrimSpace(raw), "://")}, nil
}

// String is the address as it is kept (a pending discovery's row): the
// page given, normalised, without its scheme when it was typed without
// one, so that ParseAddress reads it back the same, Bare included.
func (a Address) String() string {
	if a.Bare {
		return strings.TrimPrefix(a.Input, "https://")
	}
	return a.Input
}

// overHTTP is the same address over http, when it was assumed to be https.
func (a Address) overHTTP() (Address, bool) {
	root, ok := strings.CutPrefix(a.Root, "https://")
	input, ok2 := strings.CutPrefix(a.Input, "https://")
	if !a.Bare || !ok || !ok2 {
		return a, false
	}
	return Address{Root: "http://" + root, Input: "http://" + input, Bare: true}, true
}

// Reached says over which scheme an address was read.
type Reached struct {
	// Address is the address the attempt kept was made at.
	Address Address
	// FellBack: the address was typed without its scheme, nothing
	// answered over https, and it was read over http. Tried is the https
	// address, and Why says, in a few words, why it did not answer
	// ("the connection was refused").
	FellBack   bool
	Tried, Why string
}

// Say is what the fallback means for a person, as a clause ("nothing
// answered at https://example.org/ (the connection was refused), so
// tidings read http://example.org/ instead"); "" when there was none.
func (r Reached) Say() string {
	if !r.FellBack {
		return ""
	}
	return "nothing answered at " + r.Tried + " (" + r.Why + "), so tidings read " + r.Address.Root + " instead"
}

// Reach runs attempt at a. When a was typed without its scheme and no
// request of that attempt got an answer over https because no
// connection could be made, it runs attempt again over http, and keeps
// that one if the site answered there. Otherwise the https attempt is
// kept: its failure is the one to tell. Following and checking a site
// both go through here, so that an address typed the same way reaches
// the same site.
func Reach[T any](ctx context.Context, a Address, attempt func(context.Context, Address) (T, error)) (T, Reached, error) {
	plain, ok := a.overHTTP()
	if !ok {
		v, err := attempt(ctx, a)
		return v, Reached{Address: a}, err
	}
	var first answers
	v, err := attempt(fetch.WithObserver(ctx, first.hear), a)
	why, unreachable := first.unreachable()
	if !unreachable || ctx.Err() != nil {
		return v, Reached{Address: a}, err
	}
	var second answers
	v2, err2 := attempt(fetch.WithObserver(ctx, second.hear), plain)
	if !second.heard() {
		return v, Reached{Address: a}, err
	}
	return v2, Reached{Address: plain, FellBack: true, Tried: a.Root, Why: why}, err2
}

// answers is what an attempt heard of its requests: whether any got an
// HTTP answer, and why the first that got none could not connect.
type answers struct {
	mu       sync.Mutex
	answered bool
	why      string
}

func (s *answers) hear(f fetch.Fetched) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Status != 0 {
		s.answered = true
		return
	}
	if s.why == "" {
		s.why = noConnection(f.Err)
	}
}

// heard reports whether any request got an HTTP answer.
func (s *answers) heard() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

// unreachable reports whether no request got an answer because no
// connection could be made, and why.
func (s *answers) unreachable() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why, !s.answered && s.why != ""
}

// noConnection says why err is a request that could not connect, in a
// few words; "" when it is something else: an answer, a refusal by the
// address policy or robots.txt (which http would meet too), or a name
// that does not exist, whatever the scheme.
func noConnection(err error) string {
	var ae *fetch.AddressError
	var de *net.DNSError
	var ne net.Error
	switch {
	case err == nil, errors.As(err, &ae), errors.As(err, &de):
		return ""
	case errors.Is(err, http.ErrSchemeMismatch):
		return "the site answers plain http there"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset"
	case secureConnection(err):
		return "its secure connection failed"
	case errors.As(err, &ne) && ne.Timeout():
		return "it did not answer in time"
	case errors.As(err, &ne):
		return "no connection could be made"
	}
	return ""
}

// secureConnection reports whether err is a failed TLS handshake: a
// certificate not valid for the host, or no TLS at all.
func secureConnection(err error) bool {
	var rh tls.RecordHeaderError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &rh) || errors.As(err, &alert) || errors.As(err, &verify) ||
		errors.As(err, &authority) || errors.As(err, &hostname) || errors.As(err, &invalid)
}
