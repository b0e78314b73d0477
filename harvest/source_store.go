package harvest

import (
	"context"
	"time"

	"tidings/db"
)

// What a source reads of what its collection holds: the store is the
// core's, and an adapter reads only these, bound to its collection and
// site. What a harvest writes goes with its Result, in one transaction
// (Result.Withdraw included).

// StoredChanges reports, for each of changes, whether the collection
// stores it: the same page, kind and time.
func (j *CollectionRun) StoredChanges(ctx context.Context, changes []db.Change) ([]bool, error) {
	return j.h.store.StoredChanges(ctx, j.col.ID, changes)
}

// ChangesAt returns the collection's stored changes dated at.
func (j *CollectionRun) ChangesAt(ctx context.Context, at time.Time) ([]db.Change, error) {
	return j.h.store.ChangesAt(ctx, j.col.ID, at)
}

// PageChecks returns when each page of the collection was last read to
// check it (see Result.Checked).
func (j *CollectionRun) PageChecks(ctx context.Context) (map[string]time.Time, error) {
	return j.h.store.PageChecks(ctx, j.col.ID)
}

// StoredSnapshots returns the site's stored snapshots of the pages urls,
// by URL.
func (j *CollectionRun) StoredSnapshots(ctx context.Context, urls []string) (map[string]db.Snapshot, error) {
	return j.h.store.Snapshots(ctx, j.site.ID, urls)
}

// WatchedPages returns the pages the collection watches (see
// Result.Watched).
func (j *CollectionRun) WatchedPages(ctx context.Context) ([]db.WatchedPage, error) {
	return j.h.store.WatchedPages(ctx, j.col.ID)
}

// StoredChangesOf counts the collection's stored changes of the pages
// urls: those Result.Withdraw would remove.
func (j *CollectionRun) StoredChangesOf(ctx context.Context, urls []string) (int64, error) {
	return j.h.store.CountChangesOf(ctx, j.col.ID, urls)
}

// LastKinds returns the kind of the newest change the collection stores
// of each of the pages urls, by page; a page of which it stores none is
// not in it.
func (j *CollectionRun) LastKinds(ctx context.Context, urls []string) (map[string]string, error) {
	return j.h.store.LastKinds(ctx, j.col.ID, urls)
}
