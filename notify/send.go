package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"tidings/db"
	"tidings/fetch"
)

// backoff is the wait after each failed attempt at a message; after the
// last, it is given up, about ten hours after its first attempt.
var backoff = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 6 * time.Hour}

// limitWait is how long a message a rate limit held back waits.
const limitWait = 10 * time.Minute

// sendDue sends every message due, one at a time, until none is left
// or ctx ends.
func (n *Notifier) sendDue(ctx context.Context, rep *Report) error {
	for ctx.Err() == nil {
		now := n.opts.Now()
		m, err := n.store.ClaimOutbox(ctx, now, lease)
		if errors.Is(err, db.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := n.sendOne(ctx, m, now, rep); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// sendOne sends a claimed message and records what came of it. The
// record is made even when ctx ends just after a send that worked; a
// send cut short by ctx is left claimed, to be sent again after its
// lease.
func (n *Notifier) sendOne(ctx context.Context, m db.OutboxMessage, now time.Time, rep *Report) error {
	rec := context.WithoutCancel(ctx)
	if ok, err := n.store.TakeAttempt(ctx, m.UserID, m.TargetID, now, n.opts.PerPersonHour, n.opts.PerTargetHour); err != nil || !ok {
		if err == nil {
			rep.Waiting++
			err = n.store.Postpone(rec, m.ID, now.Add(limitWait))
		}
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, n.opts.SendTimeout)
	err := n.deliver(sctx, m)
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	done := n.opts.Now()
	if err == nil {
		rep.Sent++
		return n.store.MarkSent(rec, m.ID, done)
	}
	var ae *fetch.AddressError
	if errors.As(err, &ae) {
		return n.refusedHere(rec, m, ae, done, rep)
	}
	reason := err.Error()
	n.log.Warn("notification not sent", "message", m.ID, "kind", m.Kind, "attempt", m.Attempts+1, "error", reason)
	var p permanent
	if errors.As(err, &p) || m.Attempts >= len(backoff) {
		rep.Failed++
		return n.store.MarkFailed(rec, m.ID, done, reason)
	}
	wait := backoff[m.Attempts]
	var fe *fetch.FetchError
	if errors.As(err, &fe) && fe.RetryAfter > wait {
		wait = min(fe.RetryAfter, backoff[len(backoff)-1])
	}
	rep.Retried++
	return n.store.MarkRetry(rec, m.ID, done.Add(wait), reason)
}

// Waits of a message whose address this process's policy refuses: it is
// put back, unattempted, every policyRetry for another process (one run
// with --allow-private-addresses) to send, and given up once policyKeep
// old.
const (
	policyRetry = time.Hour
	policyKeep  = 24 * time.Hour
)

// refusedHere records a message this process's address policy refused:
// the refusal is the sender's, not the receiver's, so it counts toward no
// giving up until the message is policyKeep old. The operator reads what
// they can change; the person, once it is given up, what they can.
func (n *Notifier) refusedHere(ctx context.Context, m db.OutboxMessage, ae *fetch.AddressError, now time.Time, rep *Report) error {
	if now.Sub(m.CreatedAt) < policyKeep {
		n.log.Warn("notification held: this process's address policy refuses its address; a process given --allow-private-addresses may send it",
			"message", m.ID, "kind", m.Kind, "address", ae.Address, "address_kind", ae.Kind)
		rep.Waiting++
		return n.store.Postpone(ctx, m.ID, now.Add(policyRetry))
	}
	rep.Failed++
	return n.store.MarkFailed(ctx, m.ID, now, fmt.Sprintf(
		"not sent: %s is %s, and this tidings sends nothing there; give an address on the public internet", ae.Address, ae.Kind))
}

// errNotSubscribed is a digest whose person changed their address or
// unsubscribed after it was queued.
var errNotSubscribed = permanent{errors.New("not sent: the address was changed or unsubscribed before it went")}

// deliver sends one message by its kind.
func (n *Notifier) deliver(ctx context.Context, m db.OutboxMessage) error {
	switch m.Kind {
	case db.OutboxEmail:
		var e email
		if err := json.Unmarshal([]byte(m.Message), &e); err != nil {
			return permanent{fmt.Errorf("the message cannot be read: %w", err)}
		}
		if n.mail == nil {
			return errors.New("e-mail is off on this tidings (no SMTP server set)")
		}
		if e.Unsubscribe != "" {
			s, err := n.store.NotifySettingsOf(ctx, m.UserID)
			if err != nil {
				return err
			}
			if s.Email != m.Address || s.Every == db.EveryOff {
				return errNotSubscribed
			}
		}
		return n.mail.send(ctx, m.Address, e)
	case db.OutboxPush, db.OutboxWebhook:
		var p push
		if err := json.Unmarshal([]byte(m.Message), &p); err != nil {
			return permanent{fmt.Errorf("the message cannot be read: %w", err)}
		}
		if m.Kind == db.OutboxPush {
			return n.sendService(ctx, m, p)
		}
		s, err := n.store.NotifySettingsOf(ctx, m.UserID)
		if err != nil {
			return err
		}
		return n.sendWebhook(ctx, m, p, s.PushSecret)
	}
	return permanent{fmt.Errorf("unknown kind of message %q", m.Kind)}
}
