package fetch

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxPostAnswer bounds what is read of the answer to a POST: only its
// status matters.
const maxPostAnswer = 64 << 10

// PostForm sends form to rawURL as application/x-www-form-urlencoded,
// under the same address policy, timeouts, redirect limit and User-Agent
// as Get. Any answer but 2xx is a *FetchError; the answer's body is read
// (up to a small cap) and dropped, so the connection can be reused.
func (c *Client) PostForm(ctx context.Context, rawURL string, form url.Values) (int, error) {
	u, err := c.target(rawURL)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return 0, &FetchError{URL: rawURL, Reason: "is not a valid URL", Err: err}
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, transportError(rawURL, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxPostAnswer))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, &FetchError{URL: rawURL, Status: resp.StatusCode, Reason: "returned " + resp.Status}
	}
	return resp.StatusCode, nil
}
