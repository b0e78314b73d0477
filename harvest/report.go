package harvest

import (
	"log/slog"
	"strings"
	"time"
)

// Documents counts the documents the harvest fetched, discovery included,
// 304 answers included.
func (r *SiteReport) Documents() int {
	n := r.Run.Documents
	for _, c := range r.Collections {
		n += c.Run.Documents
	}
	return n
}

// Warnings counts the warnings of the harvest, the site's and its
// collections'.
func (r *SiteReport) Warnings() int {
	n := len(r.Run.Warnings)
	for _, c := range r.Collections {
		n += len(c.Run.Warnings)
	}
	return n
}

// Failure says what went wrong in the harvest, for the log: the
// site-level problem, and each failed collection's, by title; "" when
// nothing failed.
func (r *SiteReport) Failure() string {
	var parts []string
	if r.Run.Error != "" {
		parts = append(parts, r.Run.Error)
	}
	for _, c := range r.Collections {
		if c.Run.Error != "" {
			parts = append(parts, c.Collection.Title+": "+c.Run.Error)
		}
	}
	return strings.Join(parts, "; ")
}

// log writes the one line a site harvest leaves in the log: at INFO when
// everything worked, at WARN with the error when anything failed, so that
// a failed harvest is found by its level.
func (r *SiteReport) log(l *slog.Logger, took time.Duration) {
	attrs := []any{"site", r.Site.URL, "collections", len(r.Collections), "documents", r.Documents(),
		"changes", r.Changes(), "warnings", r.Warnings(), "duration", took.String()}
	if f := r.Failure(); f != "" {
		l.Warn("harvested site", append(attrs, "error", f)...)
		return
	}
	l.Info("harvested site", attrs...)
}
