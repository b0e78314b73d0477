// Package notify tells people of the changes to the sites they follow
// where they are: an e-mail digest on their schedule, and pushes to
// notification URLs (ntfy, Gotify, Discord, … through shoutrrr, and
// generic webhooks as signed JSON). A harvest only records changes;
// Run, later, reads the runs each person and each push target has not
// been told of, records the messages in the database's outbox, then
// sends what is due, retrying with backoff. Nothing here runs inside a
// harvest, so sending never holds one up.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"tidings/db"
	"tidings/fetch"
)

// Options configure a Notifier.
type Options struct {
	// BaseURL is the public URL of this tidings, ending in "/": the links
	// in messages start with it.
	BaseURL string
	// SMTPURL is where e-mail goes (smtp://user:pass@host:587 with
	// STARTTLS, smtps://… for implicit TLS, smtp://host:port without
	// auth for a local relay); "" turns e-mail off. MailFrom is the
	// sender's address.
	SMTPURL  string
	MailFrom string
	// Client sends webhooks and judges every push address by its
	// address policy.
	Client *fetch.Client
	Logger *slog.Logger
	// Now replaces the clock (tests).
	Now func() time.Time
	// PerTargetHour and PerPersonHour bound the attempts at sending made
	// in an hour to one push target and to one person, whatever came of
	// them; 0 = the defaults.
	PerTargetHour int
	PerPersonHour int
	// MaxTargets bounds the push targets of one person; 0 = the default.
	MaxTargets int
	// SendTimeout bounds one message's sending; 0 = DefaultSendTimeout.
	SendTimeout time.Duration
}

// Defaults of Options, and the bounds of what is sent.
const (
	DefaultPerTargetHour = 30
	DefaultPerPersonHour = 60
	DefaultMaxTargets    = 20
	DefaultSendTimeout   = 30 * time.Second
	// lease is how long a process holds a message it is sending: past
	// it, a process that died while sending is taken to have failed.
	lease = 2 * time.Minute
	// keepSent is how long sent and abandoned messages stay, the latter
	// for the settings page to show.
	keepSent = 30 * 24 * time.Hour
)

// Notifier composes and sends notifications.
type Notifier struct {
	store *db.DB
	opts  Options
	base  *url.URL
	mail  *mailer // nil when e-mail is off
	log   *slog.Logger
	wake  chan struct{}
}

// New builds a Notifier; a malformed SMTP URL is an error.
func New(store *db.DB, o Options) (*Notifier, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PerTargetHour <= 0 {
		o.PerTargetHour = DefaultPerTargetHour
	}
	if o.PerPersonHour <= 0 {
		o.PerPersonHour = DefaultPerPersonHour
	}
	if o.MaxTargets <= 0 {
		o.MaxTargets = DefaultMaxTargets
	}
	if o.SendTimeout <= 0 {
		o.SendTimeout = DefaultSendTimeout
	}
	if o.Client == nil {
		return nil, errors.New("notify: no client to send pushes with")
	}
	if !strings.HasSuffix(o.BaseURL, "/") {
		o.BaseURL += "/"
	}
	base, err := url.Parse(o.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("notify: base URL %q: %w", o.BaseURL, err)
	}
	n := &Notifier{store: store, opts: o, base: base, log: o.Logger, wake: make(chan struct{}, 1)}
	if o.SMTPURL != "" {
		if n.mail, err = newMailer(o.SMTPURL, o.MailFrom, o.SendTimeout); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// EmailOn tells whether this tidings can send e-mail.
func (n *Notifier) EmailOn() bool { return n.mail != nil }

// Report says what one Run did.
type Report struct {
	Digests int // digests queued
	Pushes  int // pushes and webhooks queued
	Sent    int
	Retried int // attempts that failed and will be tried again
	Failed  int // messages given up
	Waiting int // messages left for later by a rate limit
}

// RunOptions say what one Run does.
type RunOptions struct {
	// AllDigests queues every subscriber's digest of what is new since
	// their last, whatever their schedule.
	AllDigests bool
}

// Run does what is due now, once: it queues the digests whose time has
// come and a push per harvest run for each push target, then sends every
// message due, and returns. tidings notify runs it once; serve runs it
// every minute (Loop). A cancelled ctx stops it between two messages, or
// during one, which is then sent again by a later Run: that is the only
// message a crash can repeat.
func (n *Notifier) Run(ctx context.Context, o RunOptions) (Report, error) {
	var rep Report
	errs := []error{n.queueDigests(ctx, o.AllDigests, &rep), n.queuePushes(ctx, &rep)}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	errs = append(errs, n.sendDue(ctx, &rep))
	now := n.opts.Now()
	if _, err := n.store.PruneOutbox(ctx, now.Add(-keepSent)); err != nil {
		errs = append(errs, err)
	}
	if _, err := n.store.PruneAttempts(ctx, now.Add(-time.Hour)); err != nil {
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// Loop runs Run every tick until ctx ends, logging what it did and its
// errors; Wake runs it at once.
func (n *Notifier) Loop(ctx context.Context, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		rep, err := n.Run(ctx, RunOptions{})
		if err != nil && ctx.Err() == nil {
			n.log.Error("notify failed", "error", err)
		}
		if rep.Sent+rep.Failed+rep.Retried > 0 {
			n.log.Info("notified", "sent", rep.Sent, "retried", rep.Retried, "failed", rep.Failed, "waiting", rep.Waiting)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-n.wake:
		}
	}
}

// Wake has a Loop run at once: a confirmation e-mail should not wait for
// the tick.
func (n *Notifier) Wake() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// abs turns a path relative to the base URL into an absolute URL.
func (n *Notifier) abs(path string) string {
	return n.base.JoinPath(path).String()
}

// SettingsPath is the settings page, relative to the base URL.
const SettingsPath = "settings"
