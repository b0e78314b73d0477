package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// settingPublicURL is the key of the public address serve was last given.
const settingPublicURL = "public_url"

// PublicURL returns the public address serve was last started with
// (--base-url), and when it was, or ErrNotFound when it never was given
// one.
func (d *DB) PublicURL(ctx context.Context) (string, time.Time, error) {
	var v string
	var at time.Time
	err := d.r.QueryRowContext(ctx, `SELECT value, updated_at FROM settings WHERE key = ?`, settingPublicURL).Scan(&v, timeCol{&at})
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, ErrNotFound
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("db: load the public address: %w", err)
	}
	return v, at, nil
}

// SetPublicURL records the public address serve is started with, at now.
func (d *DB) SetPublicURL(ctx context.Context, u string, now time.Time) error {
	_, err := d.w.ExecContext(ctx, `
INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, settingPublicURL, u, fmtTime(now))
	if err != nil {
		return fmt.Errorf("db: store the public address: %w", err)
	}
	return nil
}
