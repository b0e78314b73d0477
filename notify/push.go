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
	"slices"
	"strings"

	"github.com/nicholas-fedor/shoutrrr/pkg/router"

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
// notification URL: not one of a service tidings sends to, malformed, or
// naming a host the address policy refuses. nil when it may be used. It
// sends nothing and connects nowhere: only a host name is looked up.
func (n *Notifier) CheckPushURL(ctx context.Context, raw string) error {
	if len(raw) > maxPushURL {
		return fmt.Errorf("the notification URL is longer than %d characters", maxPushURL)
	}
	if wh := webhookURL(raw); wh != "" {
		u, err := url.Parse(wh)
		if err != nil || u.Host == "" {
			return fmt.Errorf("%s is not a webhook address: write generic+https://host/path", redactURL(raw))
		}
		return n.opts.Client.CheckAddress(ctx, wh)
	}
	t, err := n.parseTarget(raw)
	if err != nil {
		return err
	}
	return n.checkHost(ctx, t)
}

// target is a notification URL of a service tidings sends to, read.
type target struct {
	raw string
	u   *url.URL
	svc service
	// host is where the URL connects, "" for a service's own API.
	host string
}

// parseTarget reads a notification URL without any I/O. Its errors are
// sentences for the person who wrote it.
func (n *Notifier) parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return target{}, fmt.Errorf("%s is not a notification URL tidings can send to: it sends to %s", redactURL(raw), offered)
	}
	scheme := strings.ToLower(u.Scheme)
	svc, ok := services[scheme]
	switch {
	case !ok && (scheme == "generic" || strings.HasPrefix(scheme, "generic+")):
		return target{}, fmt.Errorf("%s is not a webhook address: write generic+https://host/path (or generic+http://)", redactURL(raw))
	case !ok && slices.Contains((&router.ServiceRouter{}).ListServices(), scheme):
		return target{}, fmt.Errorf("tidings does not send to %s:// URLs: that service could not be held to the address policy tidings keeps to for every connection. It sends to %s", scheme, offered)
	case !ok:
		return target{}, fmt.Errorf("%s is not a notification URL tidings can send to: it sends to %s", redactURL(raw), offered)
	}
	t := target{raw: raw, u: u, svc: svc}
	if svc.own != nil {
		r, err := svc.own(u, push{})
		if err != nil {
			return t, fmt.Errorf("%s is not a %s URL tidings can send to: %v", redactURL(raw), scheme, err)
		}
		if !svc.fixed {
			t.host = r.URL
		}
		return t, nil
	}
	if _, err := svc.lib(u, n.opts.Client.HTTPClient()); err != nil {
		return t, fmt.Errorf("%s is not a %s URL tidings can send to: %v", redactURL(raw), scheme, err)
	}
	if !svc.fixed && u.Hostname() != "" {
		t.host = "https://" + u.Host + "/"
	}
	return t, nil
}

// checkHost judges, by the address policy, the host a target connects
// to, so that a refusal reads beside the form and a message is given up
// before it connects. The policy applied at connect time stays the one
// that counts: DNS may answer differently by then.
func (n *Notifier) checkHost(ctx context.Context, t target) error {
	if t.host == "" {
		return nil
	}
	err := n.opts.Client.CheckAddress(ctx, t.host)
	var fe *fetch.FetchError
	if errors.As(err, &fe) {
		c := *fe
		c.URL = redactURL(t.raw)
		return &c
	}
	return err
}

// redactURL names a notification URL without what it may carry of
// secrets (a password, a token, a key, a topic): its scheme and host.
// Errors show it; the URL itself is shown beside them only to its owner.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "(unreadable URL)"
	}
	s := u.Scheme + "://"
	if u.User != nil {
		s += "…@"
	}
	s += u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Opaque != "" {
		s += "/…"
	}
	return s
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
	return n.post(ctx, m.Address, request{URL: webhookURL(m.Address), ContentType: "application/json", Body: []byte(p.JSON), Header: h})
}

// post sends r through fetch for the notification URL address. An
// answer or refusal that will not change is permanent.
func (n *Notifier) post(ctx context.Context, address string, r request) error {
	_, err := n.opts.Client.Post(ctx, r.URL, r.ContentType, r.Body, r.Header)
	if err == nil {
		return nil
	}
	var fe *fetch.FetchError
	if errors.As(err, &fe) {
		c := *fe
		c.URL = redactURL(address)
		err = &c
	}
	if !fetch.Transient(err) && (fe == nil || fe.Status != http.StatusRequestTimeout) {
		return permanent{err}
	}
	return err
}

// sendService sends to a service: by a request tidings makes, or by
// shoutrrr's service through tidings' client (sendLib).
func (n *Notifier) sendService(ctx context.Context, m db.OutboxMessage, p push) error {
	t, err := n.parseTarget(m.Address)
	if err != nil {
		return permanent{err}
	}
	if err := n.checkHost(ctx, t); err != nil {
		// A name that does not resolve now may tomorrow; an address this
		// process refuses, another may send to (sendOne).
		return err
	}
	if t.svc.own != nil {
		r, err := t.svc.own(t.u, p)
		if err != nil {
			return permanent{err}
		}
		return n.post(ctx, m.Address, r)
	}
	return n.sendLib(ctx, t, p)
}
