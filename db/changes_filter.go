package db

import (
	"context"
	"strings"
	"time"
)

// ChangeFilter narrows ScopeChanges; zero values match everything.
type ChangeFilter struct {
	SiteID int64     // only this site's
	Kinds  []string  // created, updated, deleted
	Since  time.Time // dated at or after
	Until  time.Time // dated before
}

// ScopeChanges returns the changes in scope that are in its feeds
// (history stored as already seen is left out, and a person's own rules
// hide what they hide), newest first, that f lets through, from the
// page that ends before b on.
func (d *DB) ScopeChanges(ctx context.Context, scope Scope, f ChangeFilter, b Before, limit int) ([]Change, error) {
	where, arg := scope.where("ch")
	page, pageArgs := b.cond("ch.datetime", "ch.id")
	shown, shownArgs := scope.shown("ch")
	conds := []string{where, "ch.run_id IS NOT NULL", page, shown}
	args := append(append([]any{arg}, pageArgs...), shownArgs...)
	if f.SiteID != 0 {
		conds = append(conds, "ch.collection_id IN (SELECT id FROM collections WHERE site_id = ?)")
		args = append(args, f.SiteID)
	}
	if len(f.Kinds) > 0 {
		conds = append(conds, "ch.kind IN (?"+strings.Repeat(", ?", len(f.Kinds)-1)+")")
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	if !f.Since.IsZero() {
		conds = append(conds, "ch.datetime >= ?")
		args = append(args, fmtTime(f.Since))
	}
	if !f.Until.IsZero() {
		conds = append(conds, "ch.datetime < ?")
		args = append(args, fmtTime(f.Until))
	}
	return d.changesWhere(ctx, strings.Join(conds, " AND ")+" ORDER BY ch.datetime DESC, ch.id DESC LIMIT ?", limit, args...)
}
