package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The kinds of a site's ignore rules.
const (
	IgnoreText    = "text"    // a line containing a text, or matching /a pattern/
	IgnoreCSS     = "css"     // the parts of watched pages a CSS selector matches
	IgnoreLearned = "learned" // a shape of lines a harvest learned is noise
)

// MaxIgnoreRules bounds the rules people give a site, and MaxLearned the
// shapes its harvests learn, each on its own: what is learned never keeps
// a person from adding a rule.
const (
	MaxIgnoreRules = 50
	MaxLearned     = 30
)

// IgnoreRule is one rule for what a site's pages hold that is no news.
type IgnoreRule struct {
	ID        int64
	SiteID    int64
	Kind      string
	Pattern   string
	CreatedAt time.Time
	// OffReason, when set, says why a harvest switched the rule off: it
	// applies no more, and is kept for the person who gave it to read.
	OffReason string
}

// IgnoreRules lists a site's rules, oldest first.
func (d *DB) IgnoreRules(ctx context.Context, siteID int64) ([]IgnoreRule, error) {
	return queryAll(ctx, d, "ignore rules", `
SELECT id, site_id, kind, pattern, created_at, off_reason FROM ignore_rules WHERE site_id = ? ORDER BY id`,
		func(s scanner) (IgnoreRule, error) {
			var r IgnoreRule
			err := s.Scan(&r.ID, &r.SiteID, &r.Kind, &r.Pattern, timeCol{&r.CreatedAt}, &r.OffReason)
			return r, err
		}, siteID)
}

// ErrTooManyRules: the site has MaxIgnoreRules already.
var ErrTooManyRules = fmt.Errorf("db: a site has at most %d ignore rules", MaxIgnoreRules)

// AddIgnoreRule adds a person's rule to a site. The same rule again is
// ErrAlreadyExists; past MaxIgnoreRules, ErrTooManyRules.
func (d *DB) AddIgnoreRule(ctx context.Context, siteID int64, kind, pattern string, now time.Time) (IgnoreRule, error) {
	r := IgnoreRule{SiteID: siteID, Kind: kind, Pattern: pattern, CreatedAt: now.UTC()}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ignore_rules WHERE site_id = ? AND kind <> ?`, siteID, IgnoreLearned).Scan(&n); err != nil {
			return err
		}
		if n >= MaxIgnoreRules {
			return ErrTooManyRules
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO ignore_rules (site_id, kind, pattern, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			siteID, kind, pattern, fmtTime(r.CreatedAt)).Scan(&r.ID)
		if isUnique(err) {
			return ErrAlreadyExists
		}
		return err
	})
	if errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrTooManyRules) {
		return IgnoreRule{}, err
	}
	if err != nil {
		return IgnoreRule{}, fmt.Errorf("db: add an ignore rule to site %d: %w", siteID, err)
	}
	return r, nil
}

// DeleteIgnoreRule removes a site's rule; ErrNotFound when the site has
// no rule of that id.
func (d *DB) DeleteIgnoreRule(ctx context.Context, siteID, id int64) error {
	res, err := d.w.ExecContext(ctx, `DELETE FROM ignore_rules WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return fmt.Errorf("db: delete ignore rule %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SwitchOffRule switches a site's rule off for good, saying why; a rule
// already off keeps its first reason.
func (d *DB) SwitchOffRule(ctx context.Context, siteID, id int64, reason string) error {
	_, err := d.w.ExecContext(ctx, `UPDATE ignore_rules SET off_reason = ? WHERE site_id = ? AND id = ? AND off_reason = ''`,
		reason, siteID, id)
	if err != nil {
		return fmt.Errorf("db: switch off ignore rule %d: %w", id, err)
	}
	return nil
}

// saveLearned keeps the shapes a harvest learned, up to MaxLearned; one
// kept already stays as it was.
func saveLearned(ctx context.Context, tx *sql.Tx, siteID int64, shapes []string, now time.Time) error {
	if len(shapes) == 0 {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ignore_rules WHERE site_id = ? AND kind = ?`, siteID, IgnoreLearned).Scan(&n); err != nil {
		return err
	}
	for _, s := range shapes {
		if n >= MaxLearned {
			return nil
		}
		res, err := tx.ExecContext(ctx, `
INSERT INTO ignore_rules (site_id, kind, pattern, created_at) VALUES (?, ?, ?, ?)
ON CONFLICT (site_id, kind, pattern) DO NOTHING`, siteID, IgnoreLearned, s, fmtTime(now))
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
		}
	}
	return nil
}
