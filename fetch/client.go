// Package fetch is the one safe HTTP client: every outbound request of
// tidings goes through it. It holds the address policy (no loopback,
// private, link-local or translated addresses unless allowed), timeouts,
// size caps, byte budgets that several requests share, refusals at the
// headers (by Content-Type and Content-Length), the redirect limit,
// conditional GET, streamed downloads, per-host pacing and robots.txt. It imports no package of tidings: what a
// caller keeps between runs (a host's robots.txt) goes in and out as plain
// values.
package fetch

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Defaults of the client.
const (
	DefaultMaxBody  = 50 << 20 // the sitemap protocol's limit, uncompressed
	DefaultTimeout  = 60 * time.Second
	maxRedirects    = 5
	allowFlagAdvice = "pass --allow-private-addresses (TIDINGS_ALLOW_PRIVATE_ADDRESSES=1) to allow it"
)

// ClientOptions configure a Client.
type ClientOptions struct {
	UserAgent    string
	MaxBody      int64         // cap on a document after decompression; 0 = DefaultMaxBody
	Timeout      time.Duration // whole request, body included; 0 = DefaultTimeout
	AllowPrivate bool          // allow loopback, private and link-local addresses
	// MinHostDelay spaces any two requests to one host (politeness); a
	// site's crawl_rate hint may ask for more.
	MinHostDelay time.Duration
	// DialHook, when set, sees every connection attempt before the address
	// policy judges it, so tests can prove that a refused address was never
	// connected to.
	DialHook func(network, address string)
	// OnResponse, when set, hears of every answer Get receives: the host,
	// the status and the body's bytes after decompression (0 unless 2xx).
	OnResponse func(host string, status int, bytes int64)
	// Now and Sleep, when set, replace the real clock of the per-host
	// pacing, so tests can see the waits without waiting.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client is the one HTTP client every outbound request goes through.
type Client struct {
	hc     *http.Client
	opts   ClientOptions
	pace   pacer       // per-host minimum delays (pace.go)
	robots robotsCache // per-host robots.txt (robots.go)
	// allowAddr lets tests treat one loopback server as a public host, to
	// prove what happens on the way to another.
	allowAddr func(address string) bool
}

// MaxBody is the cap on a document after decompression (--max-body),
// which a reader of a Stream holds the document to.
func (c *Client) MaxBody() int64 { return c.opts.MaxBody }

// Conditional carries the validators of a previous fetch.
type Conditional struct {
	ETag         string
	LastModified string
}

// Response is a fetched document, decompressed.
type Response struct {
	URL          string // after redirects
	NotModified  bool   // 304: Body is empty
	Body         []byte
	ContentType  string
	ETag         string
	LastModified string
	Header       http.Header
}

// FetchError is a failed fetch, phrased for people: Error() reads
// "https://example.org/x returned 404 Not Found".
type FetchError struct {
	URL    string
	Status int // the HTTP status, 0 when none was received
	Reason string
	Err    error
	// RetryAfter is what a 429 or 503 answer asked the client to wait.
	RetryAfter time.Duration
}

func (e *FetchError) Error() string { return e.URL + " " + e.Reason }
func (e *FetchError) Unwrap() error { return e.Err }

// AddressError is the refusal of a connection by the address policy.
type AddressError struct {
	Address string
	Kind    string
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("was refused: %s is %s; %s", e.Address, e.Kind, allowFlagAdvice)
}

// NewClient builds a Client.
func NewClient(o ClientOptions) *Client {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	c := &Client{opts: o}
	c.pace.def = min(o.MinHostDelay, MaxHostDelay)
	c.pace.now, c.pace.sleep = o.Now, o.Sleep
	dialer := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second, Control: c.control}
	transport := &http.Transport{
		// No proxy from the environment: the address policy must judge the
		// address actually connected to.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   2,
		// We inflate ourselves so that the size cap applies to the
		// decompressed bytes.
		DisableCompression: true,
	}
	c.hc = &http.Client{Transport: transport, Timeout: o.Timeout, CheckRedirect: c.checkRedirect}
	return c
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirected to a %s: URL, which tidings does not follow", req.URL.Scheme)
	}
	canonicalizeHost(req.URL)
	return c.checkName(req.URL.Hostname())
}

// control runs after the address is resolved and before connecting, so a
// DNS answer that changes between check and use cannot slip through.
func (c *Client) control(network, address string, _ syscall.RawConn) error {
	if c.opts.DialHook != nil {
		c.opts.DialHook(network, address)
	}
	if c.opts.AllowPrivate || (c.allowAddr != nil && c.allowAddr(address)) {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &AddressError{Address: address, Kind: "not an IP address"}
	}
	if kind := RestrictedKind(ap.Addr()); kind != "" {
		return &AddressError{Address: ap.Addr().String(), Kind: kind}
	}
	return nil
}

// Get fetches rawURL. A 304 answer to the validators in cond yields
// NotModified; any other non-2xx answer is a *FetchError.
func (c *Client) Get(ctx context.Context, rawURL string, cond Conditional) (*Response, error) {
	return c.GetWith(ctx, rawURL, GetOptions{Conditional: cond})
}

// GetWith is Get with limits of this request's own (get.go).
func (c *Client) GetWith(ctx context.Context, rawURL string, o GetOptions) (*Response, error) {
	limit := bodyLimit{max: c.opts.MaxBody, flag: " (--max-body)"}
	if o.MaxBody > 0 && o.MaxBody < limit.max {
		limit = bodyLimit{max: o.MaxBody}
	}
	limit.types = o.Types
	return c.get(ctx, rawURL, o.Conditional, limit)
}

// bodyLimit caps a body after decompression: past max it is an error, or,
// with truncate, the rest is dropped unread. flag names the setting of
// max in errors. An answer whose Content-Type is not one of types (when
// set) is refused unread.
type bodyLimit struct {
	max      int64
	truncate bool
	flag     string
	types    []string
}

func (c *Client) get(ctx context.Context, rawURL string, cond Conditional, limit bodyLimit) (got *Response, err error) {
	status := 0
	defer func() {
		observe(ctx, rawURL, status, got != nil && got.NotModified, int64(len(gotBody(got))), err)
	}()
	u, err := c.target(rawURL)
	if err != nil {
		return nil, err
	}
	budget := budgetOf(ctx)
	if err := budget.spent(); err != nil {
		return nil, &FetchError{URL: rawURL, Reason: "was not fetched: " + err.Error(), Err: err}
	}
	if u.Path != "/robots.txt" {
		if err := c.robots.allowed(ctx, c, u); err != nil {
			return nil, &FetchError{URL: rawURL, Reason: err.Error(), Err: err}
		}
	}
	req, err := http.NewRequestWithContext(c.pace.traced(ctx, u.Host), http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &FetchError{URL: rawURL, Reason: "is not a valid URL", Err: err}
	}
	if err := c.pace.wait(ctx, u.Host); err != nil {
		return nil, &FetchError{URL: rawURL, Reason: "was not fetched: " + err.Error(), Err: err}
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "application/xml, text/xml;q=0.9, text/html;q=0.5, */*;q=0.3")
	req.Header.Set("Accept-Encoding", "gzip")
	if cond.ETag != "" {
		req.Header.Set("If-None-Match", cond.ETag)
	}
	if cond.LastModified != "" {
		req.Header.Set("If-Modified-Since", cond.LastModified)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, transportError(rawURL, err)
	}
	resp.Body = budget.reader(resp.Body)
	defer resp.Body.Close()
	status = resp.StatusCode
	c.robots.answered(originOf(u))
	var read int64
	if hook := c.opts.OnResponse; hook != nil {
		defer func() { hook(resp.Request.URL.Hostname(), resp.StatusCode, read) }()
	}
	out := &Response{
		URL:          resp.Request.URL.String(),
		ContentType:  resp.Header.Get("Content-Type"),
		ETag:         resp.Header.Get("ETag"),
		LastModified: resp.Header.Get("Last-Modified"),
		Header:       resp.Header,
	}
	if resp.StatusCode == http.StatusNotModified {
		out.NotModified = true
		return out, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, statusError(rawURL, resp)
	}
	if err := admit(resp, limit, budget); err != nil {
		// Closed unread: the transport drops the connection rather than
		// drain what may be an endless body.
		return nil, &FetchError{URL: rawURL, Reason: err.Error(), Err: err}
	}
	out.Body, err = readBody(resp, limit)
	read = int64(len(out.Body))
	if err != nil {
		return nil, &FetchError{URL: rawURL, Reason: err.Error(), Err: err}
	}
	return out, nil
}

func transportError(rawURL string, err error) error {
	var ae *AddressError
	if errors.As(err, &ae) {
		return &FetchError{URL: rawURL, Reason: ae.Error(), Err: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return &FetchError{URL: rawURL, Reason: "did not answer in time", Err: err}
	}
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &FetchError{URL: rawURL, Reason: "could not be fetched: " + err.Error(), Err: err}
}

// readBody inflates gzip, whether announced by Content-Encoding or only by
// its magic bytes (.xml.gz files, often served as application/octet-stream),
// and caps the decompressed size.
func readBody(resp *http.Response, limit bodyLimit) ([]byte, error) {
	var r io.Reader = resp.Body
	if ce := resp.Header.Get("Content-Encoding"); ce == "gzip" || ce == "x-gzip" {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("sent a broken gzip stream: %v", err)
		}
		defer zr.Close()
		r = zr
	}
	// A .xml.gz served with Content-Encoding: gzip is compressed twice.
	for range 2 {
		br := bufio.NewReader(r)
		magic, _ := br.Peek(2)
		r = br
		if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("sent a broken gzip file: %v", err)
		}
		defer zr.Close()
		r = zr
	}
	body, err := readAllOnce(io.LimitReader(r, limit.max+1), resp.ContentLength)
	if errors.Is(err, ErrBudgetSpent) {
		return nil, fmt.Errorf("was cut off: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("could not be read completely: %v", err)
	}
	if int64(len(body)) > limit.max {
		if limit.truncate {
			return body[:limit.max:limit.max], nil
		}
		return nil, &sentence{msg: fmt.Sprintf("is larger than the limit of %s%s", SizeString(limit.max), limit.flag), is: ErrTooLarge}
	}
	return body, nil
}

// readAllOnce reads r to its end into one allocation of the body's size.
// io.ReadAll grows its slice as it goes: for a 45 MB body it allocates
// about four times that, which the garbage collector's headroom doubles
// again, and a few such bodies at once take hundreds of MB. A body the
// answer announced (and did not compress) of up to 4 MiB is read into a
// slice of that size; a longer one, or one of unknown length, is first
// spooled to a temporary file past its first 4 MiB, as mime/multipart
// does with large forms, then read back into a slice of its length, so
// that only the body itself is ever held.
func readAllOnce(r io.Reader, announced int64) ([]byte, error) {
	const inMemory = 4 << 20
	size := 32 << 10
	if announced > 0 && announced < inMemory {
		// One byte more, for the read that finds the end.
		size = int(announced) + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= inMemory {
				break
			}
			grown := make([]byte, len(buf), min(2*cap(buf), inMemory))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	f, err := os.CreateTemp("", "tidings-body-*")
	if err != nil {
		// No spool: read on in memory.
		rest, err := io.ReadAll(r)
		return append(buf, rest...), err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	rest, err := io.Copy(f, r)
	if err != nil {
		return nil, err
	}
	body := make([]byte, int64(len(buf))+rest)
	copy(body, buf)
	if _, err := f.ReadAt(body[len(buf):], 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("could not be read back from its temporary file: %v", err)
	}
	return body, nil
}

// SizeString writes a byte count for people: "50 MiB", or "1234 bytes".
func SizeString(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckAddress tells, before anything is fetched, whether rawURL names a
// host the address policy refuses, so a form can say so beside the field.
// The connect-time check stays the one that counts: DNS may answer
// differently later.
func (c *Client) CheckAddress(ctx context.Context, rawURL string) error {
	if c.opts.AllowPrivate {
		return nil
	}
	// The address a request would go to, read as a request reads it.
	u, err := c.target(rawURL)
	if err != nil {
		return err
	}
	host := u.Hostname()
	addrs := []netip.Addr{}
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, ip)
	} else {
		found, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return &FetchError{URL: rawURL, Reason: "could not be found: the host name " + host + " does not resolve", Err: err}
		}
		addrs = found
	}
	for _, ip := range addrs {
		if kind := RestrictedKind(ip); kind != "" {
			ae := &AddressError{Address: ip.Unmap().String(), Kind: kind}
			return &FetchError{URL: rawURL, Reason: ae.Error(), Err: ae}
		}
	}
	return nil
}

// statusError is the FetchError of a non-2xx answer, with the wait a 429
// or 503 asked for.
func statusError(rawURL string, resp *http.Response) *FetchError {
	fe := &FetchError{URL: rawURL, Status: resp.StatusCode, Reason: "returned " + resp.Status}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		fe.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return fe
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Gone reports whether err is an answer saying the document is not there:
// 404 Not Found or 410 Gone, as opposed to a failure that may pass.
func Gone(err error) bool {
	var fe *FetchError
	return errors.As(err, &fe) && (fe.Status == http.StatusNotFound || fe.Status == http.StatusGone)
}

// Transient reports whether a request that failed with err may work when
// tried again later: no answer came, or a 429 or 5xx one. A refused
// address never will.
func Transient(err error) bool {
	var ae *AddressError
	if errors.As(err, &ae) {
		return false
	}
	var fe *FetchError
	if !errors.As(err, &fe) {
		return true
	}
	return fe.Status == 0 || fe.Status == http.StatusTooManyRequests || fe.Status >= 500
}
