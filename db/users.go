package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// User is an account.
type User struct {
	ID           int64
	Name         string
	PasswordHash string
	Admin        bool
	FeedToken    string // the secret in the user's aggregate feed URL
	CreatedAt    time.Time
}

const userCols = `id, name, password_hash, is_admin, feed_token, created_at`

func scanUser(row scanner) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Name, &u.PasswordHash, &u.Admin, &u.FeedToken, timeCol{&u.CreatedAt})
	return u, err
}

// CreateUser stores a new account. An account made while none exists is
// made an admin, and takes the one row of first_account in the same
// transaction: of two sign-ups at once on an empty database, the second
// to commit finds the row taken, and is made again as an account like
// any other. inviteToken, when not empty, must name an unused, unexpired
// invite, which is used up in the same transaction (ErrInvalidInvite
// otherwise). A taken name is ErrAlreadyExists.
func (d *DB) CreateUser(ctx context.Context, name, passwordHash, feedToken, inviteToken string) (User, error) {
	return d.createUser(ctx, name, passwordHash, feedToken, inviteToken, false)
}

// CreateFirstUser stores the first account, or fails with ErrInvalidInvite
// when another was created meanwhile: sign-up without an invite is open
// only while no account exists.
func (d *DB) CreateFirstUser(ctx context.Context, name, passwordHash, feedToken string) (User, error) {
	return d.createUser(ctx, name, passwordHash, feedToken, "", true)
}

// errFirstTaken is a first account made while another was: the
// transaction is tried again, which then sees the other.
var errFirstTaken = errors.New("db: the first account was made meanwhile")

func (d *DB) createUser(ctx context.Context, name, passwordHash, feedToken, inviteToken string, onlyFirst bool) (User, error) {
	var id int64
	var err error
	for range 3 {
		id, err = d.insertUser(ctx, name, passwordHash, feedToken, inviteToken, onlyFirst)
		if !errors.Is(err, errFirstTaken) {
			break
		}
	}
	if errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrInvalidInvite) {
		return User{}, err
	}
	if err != nil {
		return User{}, fmt.Errorf("db: create user %s: %w", name, err)
	}
	return d.UserByID(ctx, id)
}

func (d *DB) insertUser(ctx context.Context, name, passwordHash, feedToken, inviteToken string, onlyFirst bool) (int64, error) {
	now := time.Now()
	var id int64
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var admin bool
		err := tx.QueryRowContext(ctx, `INSERT INTO users (name, password_hash, is_admin, feed_token, created_at)
VALUES (?, ?, NOT EXISTS (SELECT 1 FROM users), ?, ?) RETURNING id, is_admin`,
			name, passwordHash, feedToken, fmtTime(now)).Scan(&id, &admin)
		if isUnique(err) {
			return ErrAlreadyExists
		}
		if err != nil {
			return err
		}
		if onlyFirst && !admin {
			return ErrInvalidInvite
		}
		if admin {
			_, err := tx.ExecContext(ctx, `INSERT INTO first_account (one, user_id) VALUES (1, ?)`, id)
			if isUnique(err) {
				return errFirstTaken
			}
			if err != nil {
				return err
			}
		}
		if inviteToken == "" {
			return nil
		}
		res, err := tx.ExecContext(ctx, `UPDATE invites SET used_by = ?, used_at = ? WHERE token = ? AND used_by IS NULL AND used_at IS NULL AND expires_at > ?`,
			id, fmtTime(now), inviteToken, fmtTime(now))
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k != 1 {
			return ErrInvalidInvite
		}
		return nil
	})
	return id, err
}

// ErrInvalidInvite is an invite token that is unknown, used or expired.
var ErrInvalidInvite = errors.New("db: invalid invite")

// UserByID returns one user or ErrNotFound.
func (d *DB) UserByID(ctx context.Context, id int64) (User, error) {
	return d.userWhere(ctx, "id = ?", id)
}

// UserByName returns one user (names compare case-insensitively) or
// ErrNotFound.
func (d *DB) UserByName(ctx context.Context, name string) (User, error) {
	return d.userWhere(ctx, d.eng.pick("name = ?", "lower(name) = lower(?)"), name)
}

// UserByFeedToken returns the user whose aggregate feed token this is, or
// ErrNotFound.
func (d *DB) UserByFeedToken(ctx context.Context, token string) (User, error) {
	return d.userWhere(ctx, "feed_token = ?", token)
}

func (d *DB) userWhere(ctx context.Context, where string, arg any) (User, error) {
	u, err := scanUser(d.r.QueryRowContext(ctx, `SELECT `+userCols+` FROM users WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("db: load user: %w", err)
	}
	return u, nil
}

// Users lists every account, oldest first.
func (d *DB) Users(ctx context.Context) ([]User, error) {
	return queryAll(ctx, d, "list users", `SELECT `+userCols+` FROM users ORDER BY id`, scanUser)
}

// CountUsers counts the accounts.
func (d *DB) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("db: count users: %w", err)
	}
	return n, nil
}

// DeleteUser removes an account with its sessions and follows; the sites
// stay, as others may follow them.
func (d *DB) DeleteUser(ctx context.Context, name string) error {
	res, err := d.w.ExecContext(ctx, d.eng.pick(`DELETE FROM users WHERE name = ?`, `DELETE FROM users WHERE lower(name) = lower(?)`), name)
	if err != nil {
		return fmt.Errorf("db: delete user %s: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetFeedToken replaces a user's aggregate feed token; the old URL stops
// working at once.
func (d *DB) SetFeedToken(ctx context.Context, userID int64, token string) error {
	_, err := d.w.ExecContext(ctx, `UPDATE users SET feed_token = ? WHERE id = ?`, token, userID)
	if err != nil {
		return fmt.Errorf("db: set feed token of user %d: %w", userID, err)
	}
	return nil
}

// SetPassword replaces a user's password hash and ends their sessions.
func (d *DB) SetPassword(ctx context.Context, userID int64, hash string) error {
	return d.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, userID); err != nil {
			return fmt.Errorf("db: set password of user %d: %w", userID, err)
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
		return err
	})
}

// CreateSession stores a session by the hash of its cookie token.
func (d *DB) CreateSession(ctx context.Context, tokenHash string, userID int64, expires time.Time) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		tokenHash, userID, fmtTime(time.Now()), fmtTime(expires))
	if err != nil {
		return fmt.Errorf("db: create session: %w", err)
	}
	return nil
}

// SessionUser returns the user of an unexpired session, or ErrNotFound.
func (d *DB) SessionUser(ctx context.Context, tokenHash string, now time.Time) (User, error) {
	u, err := scanUser(d.r.QueryRowContext(ctx, `SELECT u.id, u.name, u.password_hash, u.is_admin, u.feed_token, u.created_at
FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?`, tokenHash, fmtTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("db: load session: %w", err)
	}
	return u, nil
}

// DeleteSession ends a session; expired ones are swept at the same time.
func (d *DB) DeleteSession(ctx context.Context, tokenHash string) error {
	_, err := d.w.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ? OR expires_at <= ?`, tokenHash, fmtTime(time.Now()))
	if err != nil {
		return fmt.Errorf("db: delete session: %w", err)
	}
	return nil
}

// Invite is a single-use sign-up link.
type Invite struct {
	ID        int64
	Token     string
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedBy    string
	UsedAt    *time.Time
}

// CreateInvite stores a new invite.
func (d *DB) CreateInvite(ctx context.Context, token string, by int64, expires time.Time) error {
	_, err := d.w.ExecContext(ctx, `INSERT INTO invites (token, created_by, created_at, expires_at) VALUES (?, ?, ?, ?)`,
		token, by, fmtTime(time.Now()), fmtTime(expires))
	if err != nil {
		return fmt.Errorf("db: create invite: %w", err)
	}
	return nil
}

// InviteValid reports whether token names an unused, unexpired invite.
func (d *DB) InviteValid(ctx context.Context, token string, now time.Time) (bool, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM invites WHERE token = ? AND used_by IS NULL AND used_at IS NULL AND expires_at > ?`,
		token, fmtTime(now)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("db: check invite: %w", err)
	}
	return n == 1, nil
}

// Invites lists every invite, newest first.
func (d *DB) Invites(ctx context.Context) ([]Invite, error) {
	return queryAll(ctx, d, "list invites", `SELECT i.id, i.token, COALESCE(c.name, ''), i.created_at, i.expires_at, COALESCE(u.name, ''), i.used_at
FROM invites i LEFT JOIN users c ON c.id = i.created_by LEFT JOIN users u ON u.id = i.used_by ORDER BY i.id DESC`, scanInvite)
}

func scanInvite(row scanner) (Invite, error) {
	var i Invite
	var used nullTime
	err := row.Scan(&i.ID, &i.Token, &i.CreatedBy, timeCol{&i.CreatedAt}, timeCol{&i.ExpiresAt}, &i.UsedBy, &used)
	i.UsedAt = used.t
	return i, err
}
