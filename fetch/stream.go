package fetch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// StreamOptions bound one streamed download.
type StreamOptions struct {
	// MaxBytes caps the bytes received, as sent (compressed): the body
	// fails with errStreamTooLarge one byte past it, and a Content-Length
	// over it is refused before reading. Required.
	MaxBytes int64
	// Timeout bounds the whole download, body included; 0 means the
	// client's timeout.
	Timeout time.Duration
	// Accept is the Accept header; "*/*" when empty.
	Accept string
	// Conditional, when it holds a validator, makes the request
	// conditional: a 304 is a Stream with NotModified and no Body.
	Conditional Conditional
}

// Stream is a download whose body is read as it arrives. Unlike Get, the
// bytes are exactly those sent: nothing is inflated, whatever the
// Content-Encoding, so that the reader can count compressed bytes against
// decompressed ones (an inflated body would bypass a ratio check).
type Stream struct {
	URL           string // after redirects
	ContentType   string
	ETag          string
	LastModified  string
	ContentLength int64 // -1 when not announced
	NotModified   bool  // 304: Body is nil
	// Body is the raw body, capped at MaxBytes. Close it; closing early
	// aborts the download.
	Body io.ReadCloser
}

// errStreamTooLarge is what a stream's body returns past MaxBytes.
var errStreamTooLarge = fmt.Errorf("is larger than the limit")

// Stream starts downloading rawURL under the client's address policy and
// redirect rules. Non-2xx answers are a *FetchError.
func (c *Client) Stream(ctx context.Context, rawURL string, o StreamOptions) (st *Stream, err error) {
	status := 0
	defer func() { observe(ctx, rawURL, status, false, 0, err) }()
	u, err := c.target(rawURL)
	if err != nil {
		return nil, err
	}
	budget := budgetOf(ctx)
	if err := budget.spent(); err != nil {
		return nil, &FetchError{URL: rawURL, Reason: "was not fetched: " + err.Error(), Err: err}
	}
	if err := c.robots.allowed(ctx, c, u); err != nil {
		return nil, &FetchError{URL: rawURL, Reason: err.Error(), Err: err}
	}
	if err := c.pace.wait(ctx, u.Host); err != nil {
		return nil, &FetchError{URL: rawURL, Reason: "was not fetched: " + err.Error(), Err: err}
	}
	if o.Timeout <= 0 {
		o.Timeout = c.opts.Timeout
	}
	if o.Accept == "" {
		o.Accept = "*/*"
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	req, err := http.NewRequestWithContext(c.pace.traced(ctx, u.Host), http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, &FetchError{URL: rawURL, Reason: "is not a valid URL", Err: err}
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", o.Accept)
	if o.Conditional.ETag != "" {
		req.Header.Set("If-None-Match", o.Conditional.ETag)
	}
	if o.Conditional.LastModified != "" {
		req.Header.Set("If-Modified-Since", o.Conditional.LastModified)
	}
	// Ask for the file as it is stored; the transport adds nothing either
	// (DisableCompression), and a server that encodes anyway is still not
	// inflated here.
	req.Header.Set("Accept-Encoding", "identity")
	// The client's own Timeout would cut a long download short: the
	// context bounds this one instead.
	hc := &http.Client{Transport: c.hc.Transport, CheckRedirect: c.checkRedirect}
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return nil, transportError(rawURL, err)
	}
	resp.Body = budget.reader(resp.Body)
	status = resp.StatusCode
	c.robots.answered(originOf(u))
	if resp.StatusCode == http.StatusNotModified {
		resp.Body.Close()
		cancel()
		return &Stream{
			URL: resp.Request.URL.String(), ETag: resp.Header.Get("ETag"),
			LastModified: resp.Header.Get("Last-Modified"), NotModified: true,
		}, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		return nil, statusError(rawURL, resp)
	}
	if resp.ContentLength > o.MaxBytes {
		resp.Body.Close()
		cancel()
		return nil, &FetchError{URL: rawURL, Reason: fmt.Sprintf("announces %s, more than the limit of %s", SizeString(resp.ContentLength), SizeString(o.MaxBytes))}
	}
	if err := budget.admit(resp.ContentLength); err != nil {
		resp.Body.Close()
		cancel()
		return nil, &FetchError{URL: rawURL, Reason: "was not downloaded: " + err.Error(), Err: err}
	}
	return &Stream{
		URL:           resp.Request.URL.String(),
		ContentType:   resp.Header.Get("Content-Type"),
		ETag:          resp.Header.Get("ETag"),
		LastModified:  resp.Header.Get("Last-Modified"),
		ContentLength: resp.ContentLength,
		Body:          &cappedBody{rc: resp.Body, left: o.MaxBytes, cancel: cancel},
	}, nil
}

// cappedBody fails one byte past the cap and releases the request's
// context when closed.
type cappedBody struct {
	rc     io.ReadCloser
	left   int64
	cancel context.CancelFunc
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, errStreamTooLarge
	}
	return n, err
}

func (b *cappedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}
