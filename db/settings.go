package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The keys of the settings table.
const (
	// settingPublicURL is the public address serve was last given.
	settingPublicURL = "public_url"
	// settingServedURL is the address serve last served under when it
	// was given none: the one it made of where it listens.
	settingServedURL = "served_url"
)

// PublicURL returns the public address serve was last started with
// (--base-url), and when it was, or ErrNotFound when it never was given
// one.
func (d *DB) PublicURL(ctx context.Context) (string, time.Time, error) {
	return d.setting(ctx, settingPublicURL, "the public address")
}

// SetPublicURL records the public address serve is started with, at now.
func (d *DB) SetPublicURL(ctx context.Context, u string, now time.Time) error {
	return d.setSetting(ctx, settingPublicURL, u, now, "the public address")
}

// ServedURL returns the address serve last served under without being
// given a public one (made of --addr), and when, or ErrNotFound when it
// never ran so. The commands that send links fall back on it only when no
// public address was ever given, and can tell it from one.
func (d *DB) ServedURL(ctx context.Context) (string, time.Time, error) {
	return d.setting(ctx, settingServedURL, "the address serve made of --addr")
}

// SetServedURL records the address serve is started under without a
// public one, at now.
func (d *DB) SetServedURL(ctx context.Context, u string, now time.Time) error {
	return d.setSetting(ctx, settingServedURL, u, now, "the address serve made of --addr")
}

// setting reads one setting, or ErrNotFound; what names it in errors.
func (d *DB) setting(ctx context.Context, key, what string) (string, time.Time, error) {
	var v string
	var at time.Time
	err := d.r.QueryRowContext(ctx, `SELECT value, updated_at FROM settings WHERE key = ?`, key).Scan(&v, timeCol{&at})
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, ErrNotFound
	}
	if err != nil {
		return "", time.Time{}, fmt.Errorf("db: load %s: %w", what, err)
	}
	return v, at, nil
}

// setSetting stores one setting, at now.
func (d *DB) setSetting(ctx context.Context, key, value string, now time.Time, what string) error {
	_, err := d.w.ExecContext(ctx, `
INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, key, value, fmtTime(now))
	if err != nil {
		return fmt.Errorf("db: store %s: %w", what, err)
	}
	return nil
}
