package harvest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// robotsAgent is the name tidings answers to in robots.txt groups.
const robotsAgent = "tidings"

// How long a host's robots.txt is trusted: a day when it was read (or is
// missing), ten minutes when the host could not be reached, after which it
// is asked again.
const (
	robotsTTL      = 24 * time.Hour
	robotsErrorTTL = 10 * time.Minute
)

// robotsCache keeps each host's robots.txt, so that every fetch can honour
// it without asking twice. It uses temoto/robotstxt, a maintained parser
// that handles groups, wildcards and Allow precedence as crawlers do.
type robotsCache struct {
	mu    sync.Mutex
	m     map[string]robotsEntry
	locks map[string]*sync.Mutex // one fetch of a robots.txt at a time
}

type robotsEntry struct {
	data    *robotstxt.RobotsData // nil: every path is disallowed
	expires time.Time
}

// allowed reports whether tidings may fetch u under its host's robots.txt.
func (rc *robotsCache) allowed(ctx context.Context, c *Client, u *url.URL) error {
	origin := u.Scheme + "://" + u.Host
	rc.mu.Lock()
	if rc.locks == nil {
		rc.locks = map[string]*sync.Mutex{}
	}
	lock := rc.locks[origin]
	if lock == nil {
		lock = &sync.Mutex{}
		rc.locks[origin] = lock
	}
	rc.mu.Unlock()
	lock.Lock()
	defer lock.Unlock()
	rc.mu.Lock()
	e, ok := rc.m[origin]
	rc.mu.Unlock()
	if !ok || time.Now().After(e.expires) {
		var err error
		if e, err = fetchRobots(ctx, c, origin); err != nil {
			// No answer at all (refused, unreachable, cut off): the fetch
			// itself fails the same way and says so better.
			return nil
		}
		rc.mu.Lock()
		if rc.m == nil {
			rc.m = map[string]robotsEntry{}
		}
		rc.m[origin] = e
		rc.mu.Unlock()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if e.data == nil {
		return errors.New("was not fetched: the site's robots.txt could not be read, and a crawler must then assume it may fetch nothing")
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !e.data.TestAgent(path, robotsAgent) {
		return fmt.Errorf("is disallowed for %s by the site's robots.txt", robotsAgent)
	}
	return nil
}

// fetchRobots reads a host's robots.txt as RFC 9309 says: a 4xx answer
// means no rules; a 5xx means nothing may be fetched for now. A fetch that
// got no HTTP answer is returned as an error and not remembered.
func fetchRobots(ctx context.Context, c *Client, origin string) (robotsEntry, error) {
	resp, err := c.Get(ctx, origin+"/robots.txt", Conditional{})
	var fe *FetchError
	switch {
	case err == nil:
		data, perr := robotstxt.FromBytes(resp.Body)
		if perr != nil {
			data, _ = robotstxt.FromStatusAndBytes(404, nil)
		}
		return robotsEntry{data: data, expires: time.Now().Add(robotsTTL)}, nil
	case errors.As(err, &fe) && fe.Status >= 400 && fe.Status < 500:
		data, _ := robotstxt.FromStatusAndBytes(404, nil)
		return robotsEntry{data: data, expires: time.Now().Add(robotsTTL)}, nil
	case errors.As(err, &fe) && fe.Status >= 500:
		return robotsEntry{expires: time.Now().Add(robotsErrorTTL)}, nil
	}
	return robotsEntry{}, err
}

// canonicalizeHost rewrites an IPv4 address written in decimal, octal or
// hex (http://2130706433/, http://0177.0.0.1/, http://0x7f.1/) to the
// dotted quad it means, as inet_aton and browsers read it, so that the
// address policy judges the address actually meant.
func canonicalizeHost(u *url.URL) {
	if ip, ok := inetAton(u.Hostname()); ok {
		if port := u.Port(); port != "" {
			u.Host = ip.String() + ":" + port
		} else {
			u.Host = ip.String()
		}
	}
}

// inetAton parses the classic IPv4 spellings: one to four parts, each
// decimal, octal (leading 0) or hex (0x); the last part fills the
// remaining bytes.
func inetAton(host string) (netip.Addr, bool) {
	if host == "" || strings.Trim(host, "0123456789abcdefABCDEFxX.") != "" {
		return netip.Addr{}, false
	}
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if len(p) > 1 && strings.ContainsAny(p[1:2], "bBoO") || strings.Contains(p, "_") {
			return netip.Addr{}, false // Go spellings, not inet_aton's
		}
		v, err := strconv.ParseUint(p, 0, 32)
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
