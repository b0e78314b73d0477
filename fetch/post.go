package fetch

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
)

// maxPostAnswer bounds what is read of the answer to a POST: only its
// status matters.
const maxPostAnswer = 64 << 10

// PostForm sends form to rawURL as application/x-www-form-urlencoded,
// under the same address policy, timeouts, redirect limit and User-Agent
// as Get. Any answer but 2xx is a *FetchError; the answer's body is read
// (up to a small cap) and dropped, so the connection can be reused.
func (c *Client) PostForm(ctx context.Context, rawURL string, form url.Values) (int, error) {
	return c.Post(ctx, rawURL, "application/x-www-form-urlencoded", []byte(form.Encode()), nil)
}

// Post sends body to rawURL as contentType, with header's fields besides,
// as PostForm does.
func (c *Client) Post(ctx context.Context, rawURL, contentType string, body []byte, header http.Header) (int, error) {
	u, err := c.target(rawURL)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, &FetchError{URL: rawURL, Reason: "is not a valid URL", Err: err}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Content-Type", contentType)
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, transportError(rawURL, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxPostAnswer))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, statusError(rawURL, resp)
	}
	return resp.StatusCode, nil
}

// maxLibraryAnswer bounds what a library reads of one answer through
// HTTPClient: a notification service answers in a few bytes of JSON.
const maxLibraryAnswer = 1 << 20

// HTTPClient is an *http.Client whose connections this client's address
// policy judges, with its timeouts and redirect limit, for a library that
// makes its own requests; it shares this client's connections. An answer
// is cut off after 1 MiB; there is no pacing or robots.txt.
func (c *Client) HTTPClient() *http.Client {
	hc := *c.hc
	hc.Transport = cappedTransport{hc.Transport}
	return &hc
}

// cappedTransport cuts every answer's body at maxLibraryAnswer.
type cappedTransport struct{ next http.RoundTripper }

func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		resp.Body = libraryBody{io.LimitReader(resp.Body, maxLibraryAnswer), resp.Body}
	}
	return resp, err
}

type libraryBody struct {
	io.Reader
	io.Closer
}
