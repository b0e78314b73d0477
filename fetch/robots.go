package fetch

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
// missing), ten minutes when the host answered with an error or gave no
// answer at all, after which it is asked again. A host that gave no
// answer is asked again sooner, as soon as it answers any other request.
const (
	robotsTTL      = 24 * time.Hour
	robotsErrorTTL = 10 * time.Minute
)

// robotsCache keeps each host's robots.txt, so that every fetch can honour
// it without asking twice, and discovery reads its Sitemap lines from the
// same copy. It uses temoto/robotstxt, a maintained parser that handles
// groups, wildcards and Allow precedence as crawlers do. The copies kept
// are bounded in number and bytes, the least recently used going first: a
// long-running serve meets hosts without end. The zero value is ready to
// use.
type robotsCache struct {
	mu    sync.Mutex
	m     map[string]*list.Element // of *robotsItem, most recent at the front
	lru   list.List
	bytes int                    // the cost of the copies kept (robotsEntry.cost)
	locks map[string]*robotsLock // one fetch of a robots.txt at a time
	// held counts, by origin, the harvests under way that asked to keep
	// the origin's copy: it is never evicted then, or a harvest would read
	// robots.txt again for each of its requests.
	held map[string]int
	// maxEntries and maxBytes bound what is kept; 0 takes the defaults.
	maxEntries, maxBytes int
}

type robotsItem struct {
	origin string
	e      robotsEntry
}

// robotsLock is held while one origin's robots.txt is read; users counts
// who hold or wait for it, so the lock is dropped when nobody does.
type robotsLock struct {
	sync.Mutex
	users int
}

// What the robots cache keeps at most: enough for every host a harvest
// cycle of a few thousand sites touches, and a few MiB even when each host
// sends the 500 KiB RFC 9309 asks crawlers to read.
const (
	defaultRobotsEntries = 4096
	defaultRobotsBytes   = 32 << 20
)

// robotsEntry is one host's robots.txt as last read.
type robotsEntry struct {
	data    *robotstxt.RobotsData // nil: every path is disallowed
	expires time.Time
	fetched time.Time // when it was read, or confirmed unchanged
	url     string    // after redirects
	status  int       // of the answer that gave data
	reason  string    // "returned 404 Not Found" when not 2xx
	body    []byte    // 2xx only, at most maxRobotsBytes
	etag    string
	lastMod string
	// noAnswer is why the last read got no HTTP answer (refused,
	// unreachable, no such host); the fields above are then those of the
	// copy read before, if any.
	noAnswer error
}

// cost is what keeping e costs in memory: its body, and the rules parsed
// from it, which temoto/robotstxt holds in about twice the body's bytes
// (measured: 1.1 MB for a 500 KiB file of Disallow lines).
func (e robotsEntry) cost() int { return 3 * len(e.body) }

// maxRobotsBytes is how much of a robots.txt is read, kept and parsed: the
// 500 KiB RFC 9309 asks crawlers to parse at least; the rest is ignored.
const maxRobotsBytes = 500 << 10

// maxRobotsLine is how much of one robots.txt line is kept and parsed, as
// Google's parser keeps (2,083 × 8 bytes). A rule cut to it is a prefix of
// itself, so a Disallow cut short disallows more, not less; a Sitemap URL
// that long is refused anyway. A file of one 500 KiB line then costs what
// a line costs, not what its parsed rules would: three times the file.
const maxRobotsLine = 2083 * 8

// shortLines returns body with whatever of a line is past maxRobotsLine
// dropped; body itself when no line is that long.
func shortLines(body []byte) []byte {
	var out []byte
	kept := 0 // body[:kept] is in out, or needs no cut
	for start := 0; start < len(body); {
		end := bytes.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		if end-start > maxRobotsLine {
			out = append(out, body[kept:start+maxRobotsLine]...)
			kept = end
		}
		start = end + 1
	}
	if out == nil {
		return body
	}
	return append(out, body[kept:]...)
}

// originOf is the key of u's host in the cache.
func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// get returns origin's robots.txt, read anew when none is kept or the one
// kept has expired; conditionally when it left validators. An error means
// no HTTP answer came. That is remembered too, so that each request to a
// host that cannot be reached does not ask for its robots.txt again
// first: a check of an unreachable site would otherwise read it once per
// document, and a harvest wait for twice the timeouts.
func (rc *robotsCache) get(ctx context.Context, c *Client, origin string) (robotsEntry, error) {
	unlock := rc.lock(origin)
	defer unlock()
	prev, ok := rc.peek(origin)
	if ok && time.Now().Before(prev.expires) {
		return prev, prev.noAnswer
	}
	e, err := fetchRobots(ctx, c, origin, prev)
	if err != nil {
		if noAnswer(ctx, err) {
			prev.noAnswer, prev.expires = err, time.Now().Add(robotsErrorTTL)
			rc.put(origin, prev)
		}
		return e, err
	}
	rc.put(origin, e)
	return e, nil
}

// noAnswer: err is a request to the host that got no HTTP answer (refused,
// unreachable, no such name, timed out, refused by the address policy),
// not one this side gave up on (the caller's context, the download
// budget).
func noAnswer(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, ErrBudgetSpent) {
		return false
	}
	var ne net.Error
	var ae *AddressError
	return errors.As(err, &ne) || errors.As(err, &ae)
}

// answered forgets that origin's robots.txt got no answer, once the host
// answers another request: the next request reads robots.txt again
// rather than go on without its rules.
func (rc *robotsCache) answered(origin string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if el, ok := rc.m[origin]; ok {
		if it := el.Value.(*robotsItem); it.e.noAnswer != nil {
			it.e.noAnswer, it.e.expires = nil, time.Time{}
		}
	}
}

// lock takes origin's fetch lock, and returns its release.
func (rc *robotsCache) lock(origin string) (unlock func()) {
	rc.mu.Lock()
	if rc.locks == nil {
		rc.locks = map[string]*robotsLock{}
	}
	l := rc.locks[origin]
	if l == nil {
		l = &robotsLock{}
		rc.locks[origin] = l
	}
	l.users++
	rc.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		rc.mu.Lock()
		if l.users--; l.users == 0 {
			delete(rc.locks, origin)
		}
		rc.mu.Unlock()
	}
}

func (rc *robotsCache) put(origin string, e robotsEntry) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.keep(origin, e)
}

// seed keeps e for origin unless a copy read later is kept already.
func (rc *robotsCache) seed(origin string, e robotsEntry) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if el, ok := rc.m[origin]; ok && !el.Value.(*robotsItem).e.fetched.Before(e.fetched) {
		return
	}
	rc.keep(origin, e)
}

// keep stores e as origin's copy, the most recently used, and forgets the
// least recently used copies past the bounds. rc.mu is held.
func (rc *robotsCache) keep(origin string, e robotsEntry) {
	if rc.m == nil {
		rc.m = map[string]*list.Element{}
	}
	if el, ok := rc.m[origin]; ok {
		it := el.Value.(*robotsItem)
		rc.bytes += e.cost() - it.e.cost()
		it.e = e
		rc.lru.MoveToFront(el)
	} else {
		rc.m[origin] = rc.lru.PushFront(&robotsItem{origin: origin, e: e})
		rc.bytes += e.cost()
	}
	maxEntries, maxBytes := rc.maxEntries, rc.maxBytes
	if maxEntries <= 0 {
		maxEntries = defaultRobotsEntries
	}
	if maxBytes <= 0 {
		maxBytes = defaultRobotsBytes
	}
	// The least recently used copies go first, skipping those held: what
	// is held is bounded by the harvests under way, not by the hosts seen.
	for el := rc.lru.Back(); el != nil && rc.lru.Len() > 1 && (rc.lru.Len() > maxEntries || rc.bytes > maxBytes); {
		prev := el.Prev()
		if it := el.Value.(*robotsItem); rc.held[it.origin] == 0 && it.origin != origin {
			rc.lru.Remove(el)
			delete(rc.m, it.origin)
			rc.bytes -= it.e.cost()
		}
		el = prev
	}
}

// hold keeps origin's copy from eviction until the returned release.
func (rc *robotsCache) hold(origin string) (release func()) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.held == nil {
		rc.held = map[string]int{}
	}
	rc.held[origin]++
	return func() {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.held[origin]--; rc.held[origin] <= 0 {
			delete(rc.held, origin)
		}
	}
}

// peek returns the copy kept for origin, if any, and counts it as used.
func (rc *robotsCache) peek(origin string) (robotsEntry, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	el, ok := rc.m[origin]
	if !ok {
		return robotsEntry{}, false
	}
	rc.lru.MoveToFront(el)
	return el.Value.(*robotsItem).e, true
}

// allowed reports whether tidings may fetch u under its host's robots.txt.
func (rc *robotsCache) allowed(ctx context.Context, c *Client, u *url.URL) error {
	e, err := rc.get(ctx, c, originOf(u))
	if err != nil {
		// No answer at all (refused, unreachable, cut off): the fetch
		// itself fails the same way and says so better.
		return nil
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
// means no rules; a 5xx means nothing may be fetched for now. When prev
// was a 2xx answer with validators, it asks conditionally and a 304 keeps
// prev for another day. A fetch that got no HTTP answer is returned as an
// error.
func fetchRobots(ctx context.Context, c *Client, origin string, prev robotsEntry) (robotsEntry, error) {
	var cond Conditional
	if prev.status/100 == 2 && prev.data != nil {
		cond = Conditional{ETag: prev.etag, LastModified: prev.lastMod}
	}
	resp, err := c.get(ctx, origin+"/robots.txt", cond, bodyLimit{max: maxRobotsBytes, truncate: true})
	now := time.Now()
	var fe *FetchError
	switch {
	case err == nil && resp.NotModified:
		prev.fetched, prev.expires = now, now.Add(robotsTTL)
		return prev, nil
	case err == nil:
		body := shortLines(resp.Body)
		if len(body) == len(resp.Body) {
			// A copy, so that the buffer the body was read into is not
			// kept.
			body = bytes.Clone(body)
		}
		e := robotsEntry{url: resp.URL, status: http.StatusOK, body: body, etag: resp.ETag, lastMod: resp.LastModified}
		return e.parsed(now), nil
	case errors.As(err, &fe) && fe.Status >= 400 && fe.Status < 500:
		e := robotsEntry{url: origin + "/robots.txt", status: fe.Status, reason: fe.Reason}
		return e.parsed(now), nil
	case errors.As(err, &fe) && fe.Status >= 500:
		return robotsEntry{url: origin + "/robots.txt", status: fe.Status, reason: fe.Reason, fetched: now, expires: now.Add(robotsErrorTTL)}, nil
	}
	return robotsEntry{}, err
}

// parsed fills data from status and body, as read at t.
func (e robotsEntry) parsed(t time.Time) robotsEntry {
	e.fetched, e.expires = t, t.Add(robotsTTL)
	if e.status/100 == 2 {
		if data, err := robotstxt.FromBytes(e.body); err == nil {
			e.data = data
			return e
		}
	}
	e.data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
	return e
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

// RobotsCopy is a host's robots.txt as the client last read it, in plain
// values a caller can keep between runs and give back with SeedRobots, so
// that another process trusts it as long as this one would.
type RobotsCopy struct {
	URL          string // where it was read, after redirects
	Status       int    // of the answer that gave it
	Reason       string // "returned 404 Not Found" when not 2xx
	Body         []byte // 2xx only, at most 500 KiB, each line at most 16,664 bytes
	ETag         string
	LastModified string
	FetchedAt    time.Time // when it was read, or confirmed unchanged
}

// RobotsURL returns the address of the robots.txt that governs siteURL.
func RobotsURL(siteURL string) (string, bool) {
	origin, ok := robotsOrigin(siteURL)
	return origin + "/robots.txt", ok
}

func robotsOrigin(siteURL string) (string, bool) {
	u, err := url.Parse(siteURL)
	if err != nil || u.Host == "" {
		return "", false
	}
	canonicalizeHost(u)
	return originOf(u), true
}

// SeedRobots gives the client a copy of the robots.txt of siteURL's host
// kept from an earlier run; a copy the client read later wins.
func (c *Client) SeedRobots(siteURL string, r RobotsCopy) {
	origin, ok := robotsOrigin(siteURL)
	if !ok || r.Status == 0 {
		return
	}
	// A copy kept before lines were cut may hold longer ones.
	e := robotsEntry{url: r.URL, status: r.Status, reason: r.Reason, body: shortLines(r.Body), etag: r.ETag, lastMod: r.LastModified}
	c.robots.seed(origin, e.parsed(r.FetchedAt))
}

// Robots returns the robots.txt of siteURL's host: the copy kept, or read
// anew (conditionally when it can) once that copy is a day old. An error
// means no HTTP answer came; a 4xx or 5xx answer is a copy with that
// status.
func (c *Client) Robots(ctx context.Context, siteURL string) (RobotsCopy, error) {
	origin, ok := robotsOrigin(siteURL)
	if !ok {
		return RobotsCopy{}, &FetchError{URL: siteURL, Reason: "is not an http or https URL"}
	}
	e, err := c.robots.get(ctx, c, origin)
	if err != nil {
		return RobotsCopy{}, err
	}
	return e.copy(), nil
}

// HoldRobots keeps the client's copy of the robots.txt of siteURL's host
// while a harvest of the site is under way, however many other hosts'
// copies come after it, until release is called.
func (c *Client) HoldRobots(siteURL string) (release func()) {
	origin, ok := robotsOrigin(siteURL)
	if !ok {
		return func() {}
	}
	return c.robots.hold(origin)
}

// KeptRobots returns the copy of the robots.txt of siteURL's host that the
// client keeps, reading nothing.
func (c *Client) KeptRobots(siteURL string) (RobotsCopy, bool) {
	origin, ok := robotsOrigin(siteURL)
	if !ok {
		return RobotsCopy{}, false
	}
	e, ok := c.robots.peek(origin)
	// A host that never answered has no copy to keep.
	return e.copy(), ok && e.status != 0
}

func (e robotsEntry) copy() RobotsCopy {
	return RobotsCopy{URL: e.url, Status: e.status, Reason: e.reason, Body: e.body, ETag: e.etag, LastModified: e.lastMod, FetchedAt: e.fetched}
}
