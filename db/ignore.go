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

// MaxIgnoreRules bounds the rules one person gives a site (and those for
// everyone), and MaxLearned the shapes its harvests learn, each on its
// own: what is learned, or what another person gave, never keeps a person
// from adding a rule.
const (
	MaxIgnoreRules = 50
	MaxLearned     = 30
)

// IgnoreRule is one rule for what a site's pages hold that is no news.
type IgnoreRule struct {
	ID     int64
	SiteID int64
	// UserID is the person the rule is for: it changes only what they
	// read. 0 is a rule for everyone (an admin's, the operator's, or a
	// learned one), which the site's public feeds follow too.
	UserID    int64
	Kind      string
	Pattern   string
	CreatedAt time.Time
	// OffReason, when set, says why a harvest switched the rule off: it
	// applies no more, and is kept for the person who gave it to read.
	OffReason string
}

const ruleCols = `id, site_id, COALESCE(user_id, 0), kind, pattern, created_at, off_reason`

func scanRule(s scanner) (IgnoreRule, error) {
	var r IgnoreRule
	err := s.Scan(&r.ID, &r.SiteID, &r.UserID, &r.Kind, &r.Pattern, timeCol{&r.CreatedAt}, &r.OffReason)
	return r, err
}

// IgnoreRules lists all of a site's rules, everyone's and each person's,
// oldest first: what its harvest applies.
func (d *DB) IgnoreRules(ctx context.Context, siteID int64) ([]IgnoreRule, error) {
	return queryAll(ctx, d, "ignore rules", `SELECT `+ruleCols+` FROM ignore_rules WHERE site_id = ? ORDER BY id`, scanRule, siteID)
}

// RulesFor lists the site's rules a person sees, oldest first: the rules
// for everyone and their own, never another person's. userID 0 lists the
// rules for everyone only.
func (d *DB) RulesFor(ctx context.Context, siteID, userID int64) ([]IgnoreRule, error) {
	return queryAll(ctx, d, "ignore rules", `SELECT `+ruleCols+` FROM ignore_rules
WHERE site_id = ? AND (user_id IS NULL OR user_id = ?) ORDER BY id`, scanRule, siteID, userID)
}

// ErrTooManyRules: the person (or everyone) has MaxIgnoreRules for the
// site already.
var ErrTooManyRules = fmt.Errorf("db: a site has at most %d ignore rules a person", MaxIgnoreRules)

// AddIgnoreRule adds a rule to a site for a person (userID), or for
// everyone (0). The same rule again for the same person is
// ErrAlreadyExists; past MaxIgnoreRules of theirs, ErrTooManyRules.
func (d *DB) AddIgnoreRule(ctx context.Context, siteID, userID int64, kind, pattern string, now time.Time) (IgnoreRule, error) {
	r := IgnoreRule{SiteID: siteID, UserID: userID, Kind: kind, Pattern: pattern, CreatedAt: now.UTC()}
	owner := sql.NullInt64{Int64: userID, Valid: userID != 0}
	err := d.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM ignore_rules WHERE site_id = ? AND COALESCE(user_id, 0) = ? AND kind <> ?`,
			siteID, userID, IgnoreLearned).Scan(&n); err != nil {
			return err
		}
		if n >= MaxIgnoreRules {
			return ErrTooManyRules
		}
		err := tx.QueryRowContext(ctx, `INSERT INTO ignore_rules (site_id, user_id, kind, pattern, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
			siteID, owner, kind, pattern, fmtTime(r.CreatedAt)).Scan(&r.ID)
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

// DeleteIgnoreRule removes a site's rule that is userID's (0: one for
// everyone, learned ones included); ErrNotFound when there is no such
// rule, whoever else's it may be.
func (d *DB) DeleteIgnoreRule(ctx context.Context, siteID, userID, id int64) error {
	res, err := d.w.ExecContext(ctx, `DELETE FROM ignore_rules WHERE site_id = ? AND id = ? AND COALESCE(user_id, 0) = ?`, siteID, id, userID)
	if err != nil {
		return fmt.Errorf("db: delete ignore rule %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// markHidden records, for the changes of a run just stored, the people
// whose own rules leave them out. A change stored before (skipped as
// already there) keeps what it had.
func markHidden(ctx context.Context, tx *sql.Tx, run Run, changes []Change) error {
	for _, c := range changes {
		for _, u := range c.HiddenFor {
			if _, err := tx.ExecContext(ctx, `
INSERT INTO hidden_changes (change_id, user_id)
SELECT id, ? FROM changes WHERE collection_id = ? AND url = ? AND kind = ? AND datetime = ? AND run_id = ?
ON CONFLICT DO NOTHING`, u, run.CollectionID, c.URL, c.Kind, fmtTime(c.Datetime), run.ID); err != nil {
				return fmt.Errorf("mark change %s hidden: %w", c.URL, err)
			}
		}
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
ON CONFLICT DO NOTHING`, siteID, IgnoreLearned, s, fmtTime(now))
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			n++
		}
	}
	return nil
}
