package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/nicholas-fedor/shoutrrr/pkg/router"
	"github.com/nicholas-fedor/shoutrrr/pkg/types"

	"tidings/db"
	"tidings/fetch"
)

// SignatureHeader carries a webhook's HMAC-SHA256 of its body, keyed by
// the person's push secret, as "sha256=<hex>".
const SignatureHeader = "X-Tidings-Signature"

// maxPushURL bounds a notification URL as people give it.
const maxPushURL = 2048

// webhookURL is the http(s) URL of a generic webhook written in
// shoutrrr's syntax (generic+https://host/path), or "" for another
// service.
func webhookURL(raw string) string {
	if rest, ok := strings.CutPrefix(raw, "generic+"); ok && (strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://")) {
		return rest
	}
	return ""
}

// pushKind is the outbox kind of a push target's messages.
func pushKind(raw string) string {
	if webhookURL(raw) != "" {
		return db.OutboxWebhook
	}
	return db.OutboxPush
}

// CheckPushURL tells, in a sentence for the person, what is wrong with a
// notification URL: not one shoutrrr knows, or an address the policy
// refuses. nil when it may be used.
func (n *Notifier) CheckPushURL(ctx context.Context, raw string) error {
	if len(raw) > maxPushURL {
		return fmt.Errorf("the notification URL is longer than %d characters", maxPushURL)
	}
	if wh := webhookURL(raw); wh != "" {
		u, err := url.Parse(wh)
		if err != nil || u.Host == "" {
			return fmt.Errorf("%s is not a webhook address: write generic+https://host/path", raw)
		}
		return n.opts.Client.CheckAddress(ctx, wh)
	}
	if _, err := (&router.ServiceRouter{}).Locate(raw); err != nil {
		return fmt.Errorf("%s is not a notification URL tidings can send to (ntfy://, gotify://, discord://, generic+https://…): %v", redactURL(raw), err)
	}
	return n.checkServiceHost(ctx, raw)
}

// fixedHosts are the services whose URL names an account, never a host:
// they always reach the service's own public API.
var fixedHosts = map[string]bool{
	"discord": true, "slack": true, "telegram": true, "pushover": true, "pushbullet": true, "teams": true,
	"googlechat": true, "ifttt": true, "join": true, "opsgenie": true, "pagerduty": true, "lark": true,
	"wecom": true, "notifiarr": true, "dingding": true,
}

// checkServiceHost judges, by the address policy, the host a
// self-hosted service's URL names (ntfy, Gotify, Matrix, …). shoutrrr
// makes its own requests, mostly through clients of its own that tidings
// cannot hand its dialer, so the host is resolved and judged before each
// send; a DNS answer that changes between the check and shoutrrr's own
// lookup is the gap this leaves.
func (n *Notifier) checkServiceHost(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s is not a URL", redactURL(raw))
	}
	scheme, _, _ := strings.Cut(u.Scheme, "+")
	if fixedHosts[scheme] || u.Hostname() == "" {
		return nil
	}
	return n.opts.Client.CheckAddress(ctx, "https://"+u.Host+"/")
}

// redactURL hides the credentials a notification URL carries.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unreadable URL)"
	}
	if u.User != nil {
		u.User = url.User("…")
	}
	return u.String()
}

// push is a push as the outbox keeps it: a title and text for shoutrrr's
// services, and the JSON a generic webhook gets.
type push struct {
	Title string `json:"title"`
	Text  string `json:"text"`
	JSON  string `json:"json"`
}

// sendWebhook posts the JSON through fetch, signed when the person set
// a secret.
func (n *Notifier) sendWebhook(ctx context.Context, m db.OutboxMessage, p push, secret string) error {
	h := http.Header{}
	if secret != "" {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(p.JSON))
		h.Set(SignatureHeader, "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	_, err := n.opts.Client.Post(ctx, webhookURL(m.Address), "application/json", []byte(p.JSON), h)
	if err != nil && !fetch.Transient(err) {
		var fe *fetch.FetchError
		if !errors.As(err, &fe) || fe.Status != http.StatusRequestTimeout {
			return permanent{err}
		}
	}
	return err
}

// sendService sends through shoutrrr. Services that take an HTTP client
// get fetch's, whose dialer applies the address policy at connect time;
// the others have their host judged first (checkServiceHost).
func (n *Notifier) sendService(ctx context.Context, m db.OutboxMessage, p push) error {
	if err := n.checkServiceHost(ctx, m.Address); err != nil {
		return permanent{err}
	}
	svc, err := (&router.ServiceRouter{}).Locate(m.Address)
	if err != nil {
		return permanent{fmt.Errorf("%s is not a notification URL tidings can send to: %v", redactURL(m.Address), err)}
	}
	if hc, ok := svc.(interface{ SetHTTPClient(*http.Client) }); ok {
		c := n.opts.Client.HTTPClient()
		c.Timeout = n.opts.SendTimeout
		hc.SetHTTPClient(c)
	}
	done := make(chan error, 1)
	go func() { done <- svc.Send(p.Text, &types.Params{"title": p.Title}) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %v", redactURL(m.Address), err)
		}
		return nil
	case <-ctx.Done():
		// shoutrrr takes no context: its own timeouts end the request.
		return ctx.Err()
	}
}
