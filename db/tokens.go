package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// APIToken is a named token a person made for the API. Only the hash of
// the token is stored; the token itself is shown once, when it is made.
type APIToken struct {
	ID         int64
	UserID     int64
	Name       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// MaxAPITokens bounds the tokens one person keeps: enough for every
// script and tool they run, few enough to list on one page.
const MaxAPITokens = 20

// ErrTooManyTokens: the person already has MaxAPITokens tokens.
var ErrTooManyTokens = errors.New("db: too many API tokens")

// CreateAPIToken stores a token of a person by its hash.
func (d *DB) CreateAPIToken(ctx context.Context, userID int64, name, tokenHash string, now time.Time) (APIToken, error) {
	t := APIToken{UserID: userID, Name: name, CreatedAt: now}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_tokens WHERE user_id = ?`, userID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxAPITokens {
			return ErrTooManyTokens
		}
		return tx.QueryRowContext(ctx, `INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			userID, name, tokenHash, fmtTime(now)).Scan(&t.ID)
	})
	if errors.Is(err, ErrTooManyTokens) {
		return APIToken{}, err
	}
	if err != nil {
		return APIToken{}, fmt.Errorf("db: create an API token of user %d: %w", userID, err)
	}
	return t, nil
}

// APITokens lists a person's tokens, oldest first.
func (d *DB) APITokens(ctx context.Context, userID int64) ([]APIToken, error) {
	return queryAll(ctx, d, fmt.Sprintf("load the API tokens of user %d", userID),
		`SELECT id, user_id, name, created_at, last_used_at FROM api_tokens WHERE user_id = ? ORDER BY id`,
		func(row scanner) (APIToken, error) {
			var t APIToken
			var used nullTime
			err := row.Scan(&t.ID, &t.UserID, &t.Name, timeCol{&t.CreatedAt}, &used)
			t.LastUsedAt = used.t
			return t, err
		}, userID)
}

// DeleteAPIToken revokes a person's token; ErrNotFound when they have no
// token of that id.
func (d *DB) DeleteAPIToken(ctx context.Context, userID, id int64) error {
	res, err := d.w.ExecContext(ctx, `DELETE FROM api_tokens WHERE id = ? AND user_id = ?`, id, userID)
	if err != nil {
		return fmt.Errorf("db: delete API token %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// APITokenUser returns the person a token hash belongs to, and the
// token's id, or ErrNotFound. Its last use is recorded at most once a
// minute, so that reading does not become a write on every call.
func (d *DB) APITokenUser(ctx context.Context, tokenHash string, now time.Time) (User, int64, error) {
	var u User
	var id int64
	var used nullTime
	err := d.r.QueryRowContext(ctx, `SELECT u.id, u.name, u.password_hash, u.is_admin, u.feed_token, u.created_at, t.id, t.last_used_at
FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`, tokenHash).Scan(
		&u.ID, &u.Name, &u.PasswordHash, &u.Admin, &u.FeedToken, timeCol{&u.CreatedAt}, &id, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, 0, ErrNotFound
	}
	if err != nil {
		return User{}, 0, fmt.Errorf("db: load an API token: %w", err)
	}
	if used.t == nil || now.Sub(*used.t) >= time.Minute {
		if _, err := d.w.ExecContext(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, fmtTime(now), id); err != nil {
			return User{}, 0, fmt.Errorf("db: record the use of API token %d: %w", id, err)
		}
	}
	return u, id, nil
}
