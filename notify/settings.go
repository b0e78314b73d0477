package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	"tidings/accounts"
	"tidings/db"
)

// Errors of the settings people change, in sentences for them.
var (
	ErrEmailOff   = errors.New("e-mail is off on this tidings: its operator has not set an SMTP server")
	ErrBadLink    = errors.New("this link is not valid, or no longer is: it may have expired, been used, or belong to an address since changed")
	ErrBadEvery   = errors.New("the digest is sent daily, weekly or off")
	ErrPushExists = errors.New("this notification URL is already set for the same sites")
	// ErrTooManyPushes is wrapped with the bound, and what to do.
	ErrTooManyPushes = errors.New("you have as many notification URLs as one person may")
	ErrNotAddress    = errors.New("that is not an e-mail address")
)

// confirmFor is how long a confirmation link works.
const confirmFor = 48 * time.Hour

// View is what the settings page shows of a person.
type View struct {
	db.NotifySettings
	Targets []db.PushTarget
	// Trouble lists the messages of the last 30 days that could not be
	// sent, with why, or whose last attempt failed.
	Trouble []db.OutboxMessage
	EmailOn bool
}

// Settings returns what the settings page shows of a person.
func (n *Notifier) Settings(ctx context.Context, userID int64) (View, error) {
	s, err := n.store.NotifySettingsOf(ctx, userID)
	if err != nil {
		return View{}, err
	}
	v := View{NotifySettings: s, EmailOn: n.EmailOn()}
	if v.Targets, err = n.store.PushTargets(ctx, userID); err != nil {
		return v, err
	}
	v.Trouble, err = n.store.OutboxTrouble(ctx, userID, n.opts.Now().Add(-keepSent), 20)
	return v, err
}

// SetEvery sets how often a person's digest is sent.
func (n *Notifier) SetEvery(ctx context.Context, userID int64, every string) error {
	switch every {
	case db.EveryDaily, db.EveryWeekly, db.EveryOff:
	default:
		return ErrBadEvery
	}
	return n.store.SetDigestEvery(ctx, userID, every)
}

// SetPushSecret sets the secret a person's webhooks are signed with.
func (n *Notifier) SetPushSecret(ctx context.Context, userID int64, secret string) error {
	if len(secret) > 256 {
		return errors.New("the secret is longer than 256 characters")
	}
	return n.store.SetPushSecret(ctx, userID, secret)
}

// RequestEmail sets the address a person's digests are to go to once
// they follow the link sent there to confirm it; "" removes theirs.
func (n *Notifier) RequestEmail(ctx context.Context, u db.User, addr string) error {
	addr = strings.TrimSpace(addr)
	if addr == "" {
		return n.store.RemoveEmail(ctx, u.ID)
	}
	if n.mail == nil {
		return ErrEmailOff
	}
	a, err := mail.ParseAddress(addr)
	if err != nil || a.Address != addr || len(addr) > 254 {
		return ErrNotAddress
	}
	token := accounts.NewToken()
	now := n.opts.Now()
	if err := n.store.RequestEmail(ctx, u.ID, addr, accounts.HashToken(token), now.Add(confirmFor)); err != nil {
		return err
	}
	link := n.abs("notify/confirm") + "?t=" + url.QueryEscape(token)
	body, err := json.Marshal(email{
		Subject: "Confirm your e-mail address for tidings",
		Text: fmt.Sprintf("Someone, probably you, asked tidings at %s to send %s's digests of changes to this address.\n\n"+
			"To confirm, open this link within 48 hours:\n%s\n\nIf it was not you, ignore this e-mail: nothing will be sent.\n", n.abs(""), u.Name, link),
	})
	if err != nil {
		return err
	}
	if err := n.store.Enqueue(ctx, now, db.OutboxMessage{UserID: u.ID, Kind: db.OutboxEmail, Address: addr, Message: string(body)}); err != nil {
		return err
	}
	n.Wake()
	return nil
}

// ConfirmEmail confirms the address a link was sent to.
func (n *Notifier) ConfirmEmail(ctx context.Context, token string) (db.NotifySettings, error) {
	s, err := n.store.ConfirmEmail(ctx, accounts.HashToken(token), n.opts.Now())
	if errors.Is(err, db.ErrNotFound) {
		return s, ErrBadLink
	}
	return s, err
}

// AddPush adds a notification URL for everything a person follows
// (siteID 0) or for one site, once it passes the address policy, unless
// they have Options.MaxTargets already.
func (n *Notifier) AddPush(ctx context.Context, userID int64, raw string, siteID int64) (db.PushTarget, error) {
	raw = strings.TrimSpace(raw)
	if err := n.CheckPushURL(ctx, raw); err != nil {
		return db.PushTarget{}, err
	}
	t, err := n.store.AddPushTargetUpTo(ctx, userID, raw, siteID, n.opts.MaxTargets, n.opts.Now())
	switch {
	case errors.Is(err, db.ErrAlreadyExists):
		return t, ErrPushExists
	case errors.Is(err, db.ErrTooMany):
		return t, fmt.Errorf("%w (%d): remove one to add another", ErrTooManyPushes, n.opts.MaxTargets)
	}
	return t, err
}

// RemovePush removes a person's push target by id, or (id 0) every one
// with the URL raw; it says how many it removed.
func (n *Notifier) RemovePush(ctx context.Context, userID, id int64, raw string) (int, error) {
	return n.store.RemovePushTarget(ctx, userID, id, strings.TrimSpace(raw))
}

// unsubscribeLabel keeps these signatures apart from any other use of
// the secret.
const unsubscribeLabel = "tidings unsubscribe v1\x00"

// unsubscribeToken signs a person's id and the address their digest goes
// to: the link works without signing in, for that address alone.
func (n *Notifier) unsubscribeToken(ctx context.Context, userID int64, addr string) (string, error) {
	secret, err := n.store.Secret(ctx, "notify", accounts.NewToken)
	if err != nil {
		return "", err
	}
	id := strconv.FormatInt(userID, 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(unsubscribeLabel + id + "\x00" + strings.ToLower(addr)))
	return id + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// unsubscribeURL is the one-click unsubscribe link of a digest.
func (n *Notifier) unsubscribeURL(ctx context.Context, userID int64, addr string) (string, error) {
	t, err := n.unsubscribeToken(ctx, userID, addr)
	if err != nil {
		return "", err
	}
	return n.abs("unsubscribe") + "?t=" + t, nil
}

// Unsubscribe turns off the digest a signed unsubscribe link names, and
// returns the settings it changed. A link for an address the person no
// longer uses is ErrBadLink.
func (n *Notifier) Unsubscribe(ctx context.Context, token string) (db.NotifySettings, error) {
	id, _, ok := strings.Cut(token, ".")
	userID, err := strconv.ParseInt(id, 10, 64)
	if !ok || err != nil {
		return db.NotifySettings{}, ErrBadLink
	}
	s, err := n.store.NotifySettingsOf(ctx, userID)
	if errors.Is(err, db.ErrNotFound) || (err == nil && s.Email == "") {
		return s, ErrBadLink
	}
	if err != nil {
		return s, err
	}
	want, err := n.unsubscribeToken(ctx, userID, s.Email)
	if err != nil {
		return s, err
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(token)) != 1 {
		return s, ErrBadLink
	}
	if _, err := n.store.UnsubscribeDigest(ctx, userID, s.Email); err != nil {
		return s, err
	}
	s.Every = db.EveryOff
	return s, nil
}
