package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ErrConflict is a write refused because another process did the same
// work meanwhile (a digest or a push already queued from the same runs).
var ErrConflict = errors.New("db: changed meanwhile")

// How often a person's e-mail digest is sent (NotifySettings.Every).
const (
	EveryDaily  = "daily"
	EveryWeekly = "weekly"
	EveryOff    = "off"
)

// NotifySettings are how one person is told of changes. A person who
// never set anything has the defaults: no address, daily.
type NotifySettings struct {
	UserID   int64
	UserName string
	// Email is the confirmed address digests go to; PendingEmail one
	// waiting for its confirmation link, until ConfirmUntil.
	Email        string
	PendingEmail string
	ConfirmUntil *time.Time
	Every        string
	// PushSecret, when set, signs the JSON a generic webhook gets.
	PushSecret string
	// DigestAfter is the last harvest run the previous digest told of,
	// at DigestAt.
	DigestAfter int64
	DigestAt    *time.Time
}

const notifyCols = `u.id, u.name, COALESCE(n.email, ''), COALESCE(n.pending_email, ''), n.confirm_until,
	COALESCE(n.every, 'daily'), COALESCE(n.push_secret, ''), COALESCE(n.digest_after, 0), n.digest_at`

func scanNotify(row scanner) (NotifySettings, error) {
	var s NotifySettings
	var until, at nullTime
	err := row.Scan(&s.UserID, &s.UserName, &s.Email, &s.PendingEmail, &until, &s.Every, &s.PushSecret, &s.DigestAfter, &at)
	s.ConfirmUntil, s.DigestAt = until.t, at.t
	return s, err
}

// NotifySettingsOf returns a person's settings, the defaults when they
// never set any; ErrNotFound when there is no such user.
func (d *DB) NotifySettingsOf(ctx context.Context, userID int64) (NotifySettings, error) {
	s, err := scanNotify(d.r.QueryRowContext(ctx, `SELECT `+notifyCols+`
FROM users u LEFT JOIN notify_settings n ON n.user_id = u.id WHERE u.id = ?`, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return s, ErrNotFound
	}
	if err != nil {
		return s, fmt.Errorf("db: load notification settings of user %d: %w", userID, err)
	}
	return s, nil
}

// Subscribers returns the settings of everyone with a confirmed address
// whose digest is not off.
func (d *DB) Subscribers(ctx context.Context) ([]NotifySettings, error) {
	return queryAll(ctx, d, "load digest subscribers", `SELECT `+notifyCols+`
FROM users u JOIN notify_settings n ON n.user_id = u.id WHERE n.email <> '' AND n.every <> 'off' ORDER BY u.id`, scanNotify)
}

// ensureNotify gives a user a settings row, so that updates need not
// care whether one exists.
func ensureNotify(ctx context.Context, tx *sql.Tx, userID int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO notify_settings (user_id) VALUES (?) ON CONFLICT (user_id) DO NOTHING`, userID)
	return err
}

// updateNotify runs one UPDATE of a user's settings row, creating it first.
func (d *DB) updateNotify(ctx context.Context, what string, userID int64, set string, args ...any) error {
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if err := ensureNotify(ctx, tx, userID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE notify_settings SET `+set+` WHERE user_id = ?`, append(args, userID)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("db: %s of user %d: %w", what, userID, err)
	}
	return nil
}

// SetDigestEvery sets how often a person's digest is sent.
func (d *DB) SetDigestEvery(ctx context.Context, userID int64, every string) error {
	return d.updateNotify(ctx, "set digest schedule", userID, `every = ?`, every)
}

// SetPushSecret sets the secret that signs a person's webhooks ("" for none).
func (d *DB) SetPushSecret(ctx context.Context, userID int64, secret string) error {
	return d.updateNotify(ctx, "set push secret", userID, `push_secret = ?`, secret)
}

// RequestEmail records an address waiting for its confirmation link,
// whose token's hash is tokenHash, valid until until; the confirmed
// address, if any, stays until then.
func (d *DB) RequestEmail(ctx context.Context, userID int64, addr, tokenHash string, until time.Time) error {
	return d.updateNotify(ctx, "request e-mail address", userID, `pending_email = ?, confirm_hash = ?, confirm_until = ?`,
		addr, tokenHash, fmtTime(until))
}

// RemoveEmail forgets a person's addresses, confirmed and pending.
func (d *DB) RemoveEmail(ctx context.Context, userID int64) error {
	return d.updateNotify(ctx, "remove e-mail address", userID, `email = '', pending_email = '', confirm_hash = '', confirm_until = NULL`)
}

// ConfirmEmail makes the pending address whose token hashes to tokenHash
// the person's, if its link has not expired by now, and returns their
// settings. A first address starts its digests from the runs stored
// now: what happened before it was given is not news to send.
// ErrNotFound when no pending address has this token.
func (d *DB) ConfirmEmail(ctx context.Context, tokenHash string, now time.Time) (NotifySettings, error) {
	var userID int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var email string
		err := tx.QueryRowContext(ctx, `SELECT user_id, email FROM notify_settings
WHERE confirm_hash = ? AND confirm_hash <> '' AND confirm_until > ?`, tokenHash, fmtTime(now)).Scan(&userID, &email)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		set := `email = pending_email, pending_email = '', confirm_hash = '', confirm_until = NULL`
		args := []any{}
		if email == "" {
			set += `, digest_after = (SELECT COALESCE(max(id), 0) FROM runs), digest_at = ?`
			args = append(args, fmtTime(now))
		}
		_, err = tx.ExecContext(ctx, `UPDATE notify_settings SET `+set+` WHERE user_id = ?`, append(args, userID)...)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return NotifySettings{}, ErrNotFound
	}
	if err != nil {
		return NotifySettings{}, fmt.Errorf("db: confirm e-mail address: %w", err)
	}
	return d.NotifySettingsOf(ctx, userID)
}

// UnsubscribeDigest turns off the digest of a person, if it still goes
// to addr (a link in an old e-mail must not stop a newer address's
// digests). It reports whether it did.
func (d *DB) UnsubscribeDigest(ctx context.Context, userID int64, addr string) (bool, error) {
	res, err := d.w.ExecContext(ctx, `UPDATE notify_settings SET every = 'off' WHERE user_id = ? AND email = ? AND email <> ''`, userID, addr)
	if err != nil {
		return false, fmt.Errorf("db: unsubscribe user %d: %w", userID, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// PushTarget is where a person's pushes go: a notification URL, for
// everything they follow (SiteID 0) or for one site.
type PushTarget struct {
	ID        int64
	UserID    int64
	URL       string
	SiteID    int64
	SiteTitle string // the title the person knows the site by, when SiteID is set
	// AfterRun is the last harvest run this target was told of.
	AfterRun  int64
	CreatedAt time.Time
}

const pushCols = `p.id, p.user_id, p.url, COALESCE(p.site_id, 0),
	COALESCE((SELECT COALESCE(NULLIF(f.title, ''), NULLIF(s.title, ''), s.url) FROM sites s
		LEFT JOIN follows f ON f.site_id = s.id AND f.user_id = p.user_id WHERE s.id = p.site_id), ''),
	p.after_run, p.created_at`

func scanPush(row scanner) (PushTarget, error) {
	var p PushTarget
	err := row.Scan(&p.ID, &p.UserID, &p.URL, &p.SiteID, &p.SiteTitle, &p.AfterRun, timeCol{&p.CreatedAt})
	return p, err
}

// PushTargets returns a person's push targets, or everyone's for
// userID 0, oldest first.
func (d *DB) PushTargets(ctx context.Context, userID int64) ([]PushTarget, error) {
	if userID == 0 {
		return queryAll(ctx, d, "load push targets", `SELECT `+pushCols+` FROM push_targets p ORDER BY p.id`, scanPush)
	}
	return queryAll(ctx, d, "load push targets", `SELECT `+pushCols+` FROM push_targets p WHERE p.user_id = ? ORDER BY p.id`, scanPush, userID)
}

// ErrTooMany is a row refused because its owner has as many as they may.
var ErrTooMany = errors.New("db: too many")

// AddPushTarget adds a push target, however many the person has (see
// AddPushTargetUpTo).
func (d *DB) AddPushTarget(ctx context.Context, userID int64, url string, siteID int64, now time.Time) (PushTarget, error) {
	return d.AddPushTargetUpTo(ctx, userID, url, siteID, 0, now)
}

// AddPushTargetUpTo adds a push target, told of the runs stored from
// now on, unless the person has most already (most > 0): then it is
// ErrTooMany. The same URL for the same scope twice is ErrAlreadyExists.
func (d *DB) AddPushTargetUpTo(ctx context.Context, userID int64, url string, siteID int64, most int, now time.Time) (PushTarget, error) {
	var site any
	if siteID != 0 {
		site = siteID
	}
	var id int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if err := d.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		var n, same int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(CASE WHEN url = ? AND COALESCE(site_id, 0) = ? THEN 1 ELSE 0 END), 0)
FROM push_targets WHERE user_id = ?`, url, siteID, userID).Scan(&n, &same); err != nil {
			return err
		}
		if same > 0 {
			return ErrAlreadyExists
		}
		if most > 0 && n >= most {
			return ErrTooMany
		}
		return tx.QueryRowContext(ctx, `INSERT INTO push_targets (user_id, url, site_id, after_run, created_at)
VALUES (?, ?, ?, (SELECT COALESCE(max(id), 0) FROM runs), ?) RETURNING id`, userID, url, site, fmtTime(now)).Scan(&id)
	})
	if errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrTooMany) {
		return PushTarget{}, err
	}
	if err != nil {
		return PushTarget{}, fmt.Errorf("db: add push target of user %d: %w", userID, err)
	}
	return scanPush(d.w.QueryRowContext(ctx, `SELECT `+pushCols+` FROM push_targets p WHERE p.id = ?`, id))
}

// RemovePushTarget removes a person's push target by id, or (id 0) every
// one with url; the messages waiting for it go with it. It returns how
// many it removed.
func (d *DB) RemovePushTarget(ctx context.Context, userID, id int64, url string) (int, error) {
	q, arg := `DELETE FROM push_targets WHERE user_id = ? AND id = ?`, any(id)
	if id == 0 {
		q, arg = `DELETE FROM push_targets WHERE user_id = ? AND url = ?`, url
	}
	res, err := d.w.ExecContext(ctx, q, userID, arg)
	if err != nil {
		return 0, fmt.Errorf("db: remove push target of user %d: %w", userID, err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// NotifyChange is a change as a notification tells of it, with its site
// and collection.
type NotifyChange struct {
	Change
	SiteID          int64
	SiteURL         string
	SiteTitle       string // the person's name for it, else the site's title, else ""
	SitePublicID    string
	CollectionKey   string
	CollectionTitle string
}

// NotifyScope selects the changes a notification tells of: those of the
// runs after AfterRun, up to UpToRun when set, of the sites UserID
// follows (only SiteID when set). History stored as already seen is
// never news.
//
// Watermarks are run ids: a run and its changes are stored in one
// transaction, and under SQLite's one writer run ids grow in the order
// runs commit, so a run never appears below a watermark already read.
// On PostgreSQL, where several processes store harvests at once, a
// lock taken before a run is numbered and held until it commits gives
// the same order (see insertRun). SQLite reuses the largest rowid once it is
// deleted: should the newest run of all go with the history of a site
// nobody follows, the next run takes its id and is taken for one already
// told of; with daily harvests of the sites still followed that needs no
// other harvest in between, which is rare.
type NotifyScope struct {
	UserID   int64
	SiteID   int64
	AfterRun int64
	UpToRun  int64
}

func (s NotifyScope) where() (string, []any) {
	w := `ch.run_id > ? AND c.site_id IN (SELECT site_id FROM follows WHERE user_id = ?)
	AND NOT EXISTS (SELECT 1 FROM hidden_changes hc WHERE hc.change_id = ch.id AND hc.user_id = ?)`
	args := []any{s.AfterRun, s.UserID, s.UserID}
	if s.UpToRun > 0 {
		w += ` AND ch.run_id <= ?`
		args = append(args, s.UpToRun)
	}
	if s.SiteID > 0 {
		w += ` AND c.site_id = ?`
		args = append(args, s.SiteID)
	}
	return w, args
}

// NotifyChanges returns at most limit changes in scope, by site, then
// newest first, and how many there are in all.
func (d *DB) NotifyChanges(ctx context.Context, scope NotifyScope, limit int) ([]NotifyChange, int, error) {
	where, args := scope.where()
	from := ` FROM changes ch JOIN collections c ON c.id = ch.collection_id JOIN sites s ON s.id = c.site_id
	LEFT JOIN follows f ON f.site_id = s.id AND f.user_id = ? WHERE ` + where
	args = append([]any{scope.UserID}, args...)
	var total int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("db: count changes to notify: %w", err)
	}
	out, err := queryAll(ctx, d, "load changes to notify", `SELECT `+changeCols+`, s.id, s.url,
	COALESCE(NULLIF(f.title, ''), s.title), COALESCE(s.public_id, ''), c.key, c.title`+from+`
	ORDER BY s.id, ch.datetime DESC, ch.id DESC LIMIT ?`, func(row scanner) (NotifyChange, error) {
		var n NotifyChange
		dest, finish := changeDest(&n.Change)
		err := row.Scan(append(dest, &n.SiteID, &n.SiteURL, &n.SiteTitle, &n.SitePublicID, &n.CollectionKey, &n.CollectionTitle)...)
		finish()
		return n, err
	}, append(args, limit)...)
	return out, total, err
}

// NotifyRuns returns the ids of at most limit harvest runs that put
// changes in scope (UpToRun ignored), oldest first.
func (d *DB) NotifyRuns(ctx context.Context, scope NotifyScope, limit int) ([]int64, error) {
	w := `r.id > ? AND r.changes > 0 AND c.site_id IN (SELECT site_id FROM follows WHERE user_id = ?)
	AND EXISTS (SELECT 1 FROM changes x WHERE x.run_id = r.id
		AND NOT EXISTS (SELECT 1 FROM hidden_changes hc WHERE hc.change_id = x.id AND hc.user_id = ?))`
	args := []any{scope.AfterRun, scope.UserID, scope.UserID}
	if scope.SiteID > 0 {
		w += ` AND c.site_id = ?`
		args = append(args, scope.SiteID)
	}
	return queryAll(ctx, d, "load runs to notify", `SELECT r.id FROM runs r JOIN collections c ON c.id = r.collection_id
WHERE `+w+` ORDER BY r.id LIMIT ?`, func(row scanner) (int64, error) {
		var id int64
		err := row.Scan(&id)
		return id, err
	}, append(args, limit)...)
}

// LatestRun is the id of the newest harvest run stored, 0 before any.
func (d *DB) LatestRun(ctx context.Context) (int64, error) {
	var id int64
	if err := d.r.QueryRowContext(ctx, `SELECT COALESCE(max(id), 0) FROM runs`).Scan(&id); err != nil {
		return 0, fmt.Errorf("db: load latest run: %w", err)
	}
	return id, nil
}

// Kinds of outbox messages.
const (
	OutboxEmail   = "email"   // a digest or a confirmation, by SMTP
	OutboxPush    = "push"    // a notification URL, through shoutrrr
	OutboxWebhook = "webhook" // JSON posted to a generic webhook
)

// OutboxMessage is one message to send, recorded before it is sent.
type OutboxMessage struct {
	ID       int64
	UserID   int64
	TargetID int64 // the push target, 0 for e-mail
	Kind     string
	// Address is where it goes: an e-mail address or a URL.
	Address string
	// Message is the message itself, encoded by its sender; opaque here.
	Message   string
	CreatedAt time.Time
	Attempts  int
	NextAt    time.Time
	SentAt    *time.Time
	FailedAt  *time.Time
	// Error is why the last attempt failed, for the person to read.
	Error string
}

const outboxCols = `id, user_id, COALESCE(target_id, 0), kind, address, message, created_at, attempts, next_at, sent_at, failed_at, error`

func scanOutbox(row scanner) (OutboxMessage, error) { return scanOutboxAnd(row) }

// scanOutboxAnd scans outboxCols, then into extra what follows them.
func scanOutboxAnd(row scanner, extra ...any) (OutboxMessage, error) {
	var m OutboxMessage
	var sent, failed nullTime
	err := row.Scan(append([]any{&m.ID, &m.UserID, &m.TargetID, &m.Kind, &m.Address, &m.Message, timeCol{&m.CreatedAt}, &m.Attempts,
		timeCol{&m.NextAt}, &sent, &failed, &m.Error}, extra...)...)
	m.SentAt, m.FailedAt = sent.t, failed.t
	return m, err
}

func insertOutbox(ctx context.Context, tx *sql.Tx, m OutboxMessage, now time.Time) error {
	var target any
	if m.TargetID != 0 {
		target = m.TargetID
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox (user_id, target_id, kind, address, message, created_at, next_at)
VALUES (?, ?, ?, ?, ?, ?, ?)`, m.UserID, target, m.Kind, m.Address, m.Message, fmtTime(now), fmtTime(now))
	return err
}

// Enqueue records messages to send, at once.
func (d *DB) Enqueue(ctx context.Context, now time.Time, msgs ...OutboxMessage) error {
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		for _, m := range msgs {
			if err := insertOutbox(ctx, tx, m, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("db: record messages to send: %w", err)
	}
	return nil
}

// EnqueueDigest records a person's digest (none when msg is nil: nothing
// was new) and moves their digest on to the runs up to upToRun, at now,
// in one transaction: a digest is queued once, whoever composes it. It
// is ErrConflict when the digest moved on from fromRun meanwhile.
func (d *DB) EnqueueDigest(ctx context.Context, userID, fromRun, upToRun int64, msg *OutboxMessage, now time.Time) error {
	return d.enqueueAfter(ctx, `UPDATE notify_settings SET digest_after = ?, digest_at = ? WHERE user_id = ? AND digest_after = ?`,
		[]any{upToRun, fmtTime(now), userID, fromRun}, msg, now)
}

// EnqueuePush records the messages of one push target and moves it on to
// the runs up to upToRun, in one transaction; ErrConflict when it moved
// on from fromRun meanwhile.
func (d *DB) EnqueuePush(ctx context.Context, targetID, fromRun, upToRun int64, msgs []OutboxMessage, now time.Time) error {
	return d.enqueueAfter(ctx, `UPDATE push_targets SET after_run = ? WHERE id = ? AND after_run = ?`,
		[]any{upToRun, targetID, fromRun}, msgs, now)
}

func (d *DB) enqueueAfter(ctx context.Context, update string, args []any, msgs any, now time.Time) error {
	var list []OutboxMessage
	switch m := msgs.(type) {
	case *OutboxMessage:
		if m != nil {
			list = []OutboxMessage{*m}
		}
	case []OutboxMessage:
		list = m
	}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, update, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errors.Join(ErrConflict, err)
		}
		for _, m := range list {
			if err := insertOutbox(ctx, tx, m, now); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrConflict) {
		return ErrConflict
	}
	if err != nil {
		return fmt.Errorf("db: record messages to send: %w", err)
	}
	return nil
}

// ClaimOutbox takes the oldest message due at now that no other process
// holds, and holds it for lease: a process that dies while sending
// leaves it to be sent again once the lease ends. ErrNotFound when none
// is due. When a message is due is the caller's clock, as its sender
// scheduled it; the lease is on the database's clock, so that a process
// whose clock runs ahead cannot take a message another is sending. A
// message this handle holds, it takes again once lease has passed on
// the caller's clock too: it was left by a send that was cut short.
func (d *DB) ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration) (OutboxMessage, error) {
	// A read first: a write transaction, even an empty one, tells every
	// cache that the database changed, and most looks find nothing.
	var due bool
	if err := d.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM outbox WHERE `+d.outboxFree()+`)`, fmtTime(now)).Scan(&due); err != nil {
		return OutboxMessage{}, fmt.Errorf("db: look for messages to send: %w", err)
	}
	if !due {
		return d.claimOwnOutbox(ctx, now, lease)
	}
	// One statement picks and stamps the message: PostgreSQL's SKIP
	// LOCKED leaves a row another claim is stamping to that claim, and
	// re-reads a row changed meanwhile against the condition; SQLite
	// runs one writer at a time.
	m, err := d.claimOutbox(ctx, `UPDATE outbox SET claimed_until = `+d.clockTime("?2")+`
WHERE id = (SELECT id FROM outbox WHERE `+d.outboxFree()+` ORDER BY next_at, id LIMIT 1`+d.eng.pick("", " FOR UPDATE SKIP LOCKED")+`)`,
		now, lease, fmtTime(now), lease.Microseconds())
	if errors.Is(err, sql.ErrNoRows) {
		return d.claimOwnOutbox(ctx, now, lease)
	}
	if err != nil {
		return m, fmt.Errorf("db: claim a message to send: %w", err)
	}
	return m, nil
}

// claimOutbox runs an UPDATE that stamps one message's claim, returns
// the message, and remembers the claim as this handle's.
func (d *DB) claimOutbox(ctx context.Context, update string, now time.Time, lease time.Duration, args ...any) (OutboxMessage, error) {
	var stamp timeText
	m, err := scanOutboxAnd(d.w.QueryRowContext(ctx, update+` RETURNING `+outboxCols+`, claimed_until`, args...), &stamp)
	d.gen.n.Add(1)
	if err != nil {
		return m, err
	}
	d.mine.hold(m.ID, stamp.String, now.Add(lease))
	return m, nil
}

// outboxFree is the condition of a message due at ?1 that nobody holds.
func (d *DB) outboxFree() string {
	return `sent_at IS NULL AND failed_at IS NULL AND next_at <= ?1 AND (claimed_until IS NULL OR claimed_until <= ` + d.clockTime("0") + `)`
}

// claimOwnOutbox takes again a message this handle holds whose lease
// passed at now on the caller's clock, if its claim is still the one
// this handle made; ErrNotFound when there is none.
func (d *DB) claimOwnOutbox(ctx context.Context, now time.Time, lease time.Duration) (OutboxMessage, error) {
	for {
		id, stamp, ok := d.mine.ended(now)
		if !ok {
			return OutboxMessage{}, ErrNotFound
		}
		m, err := d.claimOutbox(ctx, `UPDATE outbox SET claimed_until = `+d.clockTime("?3")+`
WHERE id = ?1 AND claimed_until = ?2 AND sent_at IS NULL AND failed_at IS NULL`, now, lease, id, stamp, lease.Microseconds())
		if errors.Is(err, sql.ErrNoRows) {
			d.mine.drop(id)
			continue
		}
		if err != nil {
			return m, fmt.Errorf("db: claim message %d again: %w", id, err)
		}
		return m, nil
	}
}

// heldClaims are the outbox messages one handle holds: each message's
// claim as stored, and when its lease ends on the caller's clock.
type heldClaims struct {
	mu sync.Mutex
	m  map[int64]heldClaim
}

type heldClaim struct {
	stamp string
	until time.Time
}

func (h *heldClaims) hold(id int64, stamp string, until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[int64]heldClaim{}
	}
	h.m[id] = heldClaim{stamp, until}
}

func (h *heldClaims) drop(id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, id)
}

// ended returns the oldest held message whose lease ended by now.
func (h *heldClaims) ended(now time.Time) (id int64, stamp string, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, c := range h.m {
		if !c.until.After(now) && (!ok || k < id) {
			id, stamp, ok = k, c.stamp, true
		}
	}
	return id, stamp, ok
}

// MarkSent records that a message was sent at.
func (d *DB) MarkSent(ctx context.Context, id int64, at time.Time) error {
	return d.outboxSet(ctx, id, `sent_at = ?, claimed_until = NULL, attempts = attempts + 1, error = ''`, fmtTime(at))
}

// MarkRetry records a failed attempt at a message, to try again at next.
func (d *DB) MarkRetry(ctx context.Context, id int64, next time.Time, reason string) error {
	return d.outboxSet(ctx, id, `next_at = ?, claimed_until = NULL, attempts = attempts + 1, error = ?`, fmtTime(next), reason)
}

// MarkFailed records that a message will not be sent, and why.
func (d *DB) MarkFailed(ctx context.Context, id int64, at time.Time, reason string) error {
	return d.outboxSet(ctx, id, `failed_at = ?, claimed_until = NULL, attempts = attempts + 1, error = ?`, fmtTime(at), reason)
}

// Postpone puts a message back, unattempted, to be sent at next.
func (d *DB) Postpone(ctx context.Context, id int64, next time.Time) error {
	return d.outboxSet(ctx, id, `next_at = ?, claimed_until = NULL`, fmtTime(next))
}

func (d *DB) outboxSet(ctx context.Context, id int64, set string, args ...any) error {
	d.mine.drop(id)
	if _, err := d.w.ExecContext(ctx, `UPDATE outbox SET `+set+` WHERE id = ?`, append(args, id)...); err != nil {
		return fmt.Errorf("db: update message %d: %w", id, err)
	}
	return nil
}

// lockUser holds a person's row until tx ends, so that two transactions
// counting what the person has before adding to it take turns. SQLite's
// one writer already makes them.
func (d *DB) lockUser(ctx context.Context, tx *sql.Tx, userID int64) error {
	if d.eng != postgresEngine {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT id FROM users WHERE id = ? FOR UPDATE`, userID)
	return err
}

// TakeAttempt records an attempt at now at sending a message of a
// person (to their push target targetID, when not 0), unless the
// attempts of the hour before now already number perPerson for the
// person, or perTarget for the target: then it records nothing and
// says false. The count and the record are one transaction, so
// processes sending at once cannot pass a limit together.
func (d *DB) TakeAttempt(ctx context.Context, userID, targetID int64, now time.Time, perPerson, perTarget int) (bool, error) {
	since := fmtTime(now.Add(-time.Hour))
	full := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) (bool, error) {
		var all, target int
		err := q.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(CASE WHEN target_id = ? THEN 1 ELSE 0 END), 0)
FROM outbox_attempts WHERE user_id = ? AND at > ?`, targetID, userID, since).Scan(&all, &target)
		return all >= perPerson || (targetID != 0 && target >= perTarget), err
	}
	// A read first: a message held back needs no write transaction.
	if f, err := full(d.r); err != nil || f {
		if err != nil {
			return false, fmt.Errorf("db: count attempts at sending to user %d: %w", userID, err)
		}
		return false, nil
	}
	took := false
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		if err := d.lockUser(ctx, tx, userID); err != nil {
			return err
		}
		if f, err := full(tx); err != nil || f {
			return err
		}
		var t any
		if targetID != 0 {
			t = targetID
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox_attempts (user_id, target_id, at) VALUES (?, ?, ?)`, userID, t, fmtTime(now)); err != nil {
			return err
		}
		took = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("db: record an attempt at sending to user %d: %w", userID, err)
	}
	return took, nil
}

// PruneAttempts forgets the attempts made before before.
func (d *DB) PruneAttempts(ctx context.Context, before time.Time) (int, error) {
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM outbox_attempts WHERE at < ?`, fmtTime(before)).Scan(&n); err != nil || n == 0 {
		if err != nil {
			return 0, fmt.Errorf("db: count attempts at sending: %w", err)
		}
		return 0, nil
	}
	res, err := d.w.ExecContext(ctx, `DELETE FROM outbox_attempts WHERE at < ?`, fmtTime(before))
	if err != nil {
		return 0, fmt.Errorf("db: prune attempts at sending: %w", err)
	}
	k, err := res.RowsAffected()
	return int(k), err
}

// SentSince counts the messages of a person (targetID 0), or of one of
// their push targets, sent after since. The rate limits weigh attempts
// instead (TakeAttempt).
func (d *DB) SentSince(ctx context.Context, userID, targetID int64, since time.Time) (int, error) {
	q, arg := `SELECT count(*) FROM outbox WHERE user_id = ? AND sent_at > ?`, any(nil)
	args := []any{userID, fmtTime(since)}
	if targetID != 0 {
		q, arg = q+` AND target_id = ?`, targetID
		args = append(args, arg)
	}
	var n int
	if err := d.r.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("db: count messages sent to user %d: %w", userID, err)
	}
	return n, nil
}

// OutboxTrouble returns a person's messages created after since that
// failed for good or whose last attempt failed, newest first: what the
// settings page tells them.
func (d *DB) OutboxTrouble(ctx context.Context, userID int64, since time.Time, limit int) ([]OutboxMessage, error) {
	return queryAll(ctx, d, "load messages not sent", `SELECT `+outboxCols+` FROM outbox
WHERE user_id = ? AND created_at > ? AND sent_at IS NULL AND error <> '' ORDER BY id DESC LIMIT ?`, scanOutbox, userID, fmtTime(since), limit)
}

// Outbox returns every message of a person, oldest first (for tests and
// the command line).
func (d *DB) Outbox(ctx context.Context, userID int64) ([]OutboxMessage, error) {
	return queryAll(ctx, d, "load messages", `SELECT `+outboxCols+` FROM outbox WHERE user_id = ? ORDER BY id`, scanOutbox, userID)
}

// PruneOutbox deletes the messages sent or given up before before.
func (d *DB) PruneOutbox(ctx context.Context, before time.Time) (int, error) {
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM outbox WHERE sent_at < ? OR failed_at < ?`,
		fmtTime(before), fmtTime(before)).Scan(&n); err != nil || n == 0 {
		if err != nil {
			return 0, fmt.Errorf("db: count sent messages: %w", err)
		}
		return 0, nil
	}
	res, err := d.w.ExecContext(ctx, `DELETE FROM outbox WHERE sent_at < ? OR failed_at < ?`, fmtTime(before), fmtTime(before))
	if err != nil {
		return 0, fmt.Errorf("db: prune sent messages: %w", err)
	}
	k, err := res.RowsAffected()
	return int(k), err
}

// Secret returns the named secret of this tidings, made by make and
// stored the first time it is asked for, so that every process sharing
// the database signs alike.
func (d *DB) Secret(ctx context.Context, name string, make func() string) (string, error) {
	key := "secret:" + strings.TrimSpace(name)
	var v string
	err := d.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("db: load secret %s: %w", name, err)
	}
	if _, err := d.w.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`,
		key, make(), fmtTime(time.Now())); err != nil {
		return "", fmt.Errorf("db: store secret %s: %w", name, err)
	}
	if err := d.w.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v); err != nil {
		return "", fmt.Errorf("db: load secret %s: %w", name, err)
	}
	return v, nil
}
