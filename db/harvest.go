package db

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Run is one harvest run: of a collection, or (CollectionID 0) the
// site-level part of a harvest, such as reading the Source Description.
type Run struct {
	ID           int64
	SiteID       int64
	CollectionID int64
	StartedAt    time.Time
	FinishedAt   time.Time
	Documents    int // documents fetched, 304s included
	NotModified  int // of which answered 304
	Changes      int // new changes that went into the feed
	Backfilled   int // new changes older than the first-harvest window
	LastmodOnly  int // changes dated by lastmod because datetime was missing
	Warnings     []string
	Error        string // a sentence for people, empty on success
	// Following marks a collection's first complete harvest: its feed's
	// "now following" entry, which lists the newest changes known then
	// whatever their age. Pages counts the collection's pages then.
	Following bool
	Pages     int
}

// Change is one recorded change of a page.
type Change struct {
	ID           int64
	CollectionID int64
	URL          string
	Kind         string // created, updated or deleted
	Datetime     time.Time
	RunID        int64 // the run that put it in the feed; 0 for History
	History      bool  // stored as already seen: older than the first-harvest window
	Source       string
	Title        string
	Summary      string
	Author       string
	Language     string   // BCP 47 tag of the page, when the protocol gives it
	Tags         []string // categories, when the protocol gives them
	FromLastmod  bool
	// TextChange says what the page's snapshot found: TextUnknown (no
	// snapshot, or none before), TextChanged or TextUnchanged (a protocol
	// said the page changed, its readable text did not).
	TextChange string
	// HiddenFor are the people whose own ignore rules leave the change
	// out of what they read (hidden_changes); everyone else sees it.
	HiddenFor []int64
	// Diff is the text the change added and removed, as the snapshot
	// package encodes it; "" when unknown.
	Diff string
}

// What a page's snapshot found of a change's text (Change.TextChange).
const (
	TextUnknown   = ""
	TextChanged   = "changed"
	TextUnchanged = "unchanged"
)

// FetchState is what a conditional GET of one document needs next time, and
// a memo of what the document said, so that a 304 costs no re-parse.
type FetchState struct {
	URL          string
	ETag         string
	LastModified string
	Memo         string
	Digest       string // of the body, when the document's content matters
	FetchedAt    time.Time
}

// CollectionHarvest is everything one collection's harvest writes. It is
// stored in a single transaction so a crash loses nothing and duplicates
// nothing: the changes, the run, the fetch state and the watermark move
// together.
type CollectionHarvest struct {
	Run         Run
	Changes     []Change
	FetchStates []FetchState
	// Watermark, when set, becomes the collection's last processing time.
	Watermark *time.Time
	// Pages are upserted into the collection's known pages (protocols that
	// diff page lists: SCP, ARC); Gone are removed from them.
	Pages []Page
	Gone  []string
	// Processed names documents (deltas) now fully processed, each by the
	// key its adapter gives it (a URL, or for SCP a URL and generated
	// time).
	Processed []string
	// State, when set, replaces the collection's protocol state.
	State *string
	// Snapshots replace the site's snapshots of their pages.
	Snapshots []Snapshot
	// Pending changes the site's pages waiting for a snapshot.
	Pending SnapshotQueue
	// Checked records when pages were read to check them (see PageChecks).
	Checked map[string]time.Time
	// Watched are the pages a pages collection read (see WatchedPage);
	// those in Gone stop being watched.
	Watched []WatchedPage
	// Learned are shapes of lines the harvest learned are the site's
	// noise, kept as its rules of kind IgnoreLearned.
	Learned []string
	// Withdraw are pages whose stored changes are deleted, before the
	// run's own are stored (see withdrawChanges).
	Withdraw []string
}

// SaveCollectionHarvest stores a collection's harvest and returns the run
// with its id and the count of changes that were new.
func (d *DB) SaveCollectionHarvest(ctx context.Context, h CollectionHarvest) (Run, error) {
	run := h.Run
	err := d.inTxRetry(ctx, func(tx *sql.Tx) error {
		id, err := d.insertRun(ctx, tx, run)
		if err != nil {
			return err
		}
		run.ID = id
		if err := withdrawChanges(ctx, tx, run.CollectionID, h.Withdraw); err != nil {
			return err
		}
		insert := insertChanges
		if d.eng == postgresEngine {
			insert = d.insertChangesInBatches
		}
		if run.Changes, run.Backfilled, err = insert(ctx, tx, run, h.Changes); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET changes = ?, backfilled = ? WHERE id = ?`, run.Changes, run.Backfilled, id); err != nil {
			return err
		}
		if err := markHidden(ctx, tx, run, h.Changes); err != nil {
			return err
		}
		if err := recordOutage(ctx, tx, run); err != nil {
			return err
		}
		if err := saveFetchStates(ctx, tx, run.SiteID, h.FetchStates); err != nil {
			return err
		}
		if err := savePages(ctx, tx, run.CollectionID, h); err != nil {
			return err
		}
		if err := saveChecks(ctx, tx, run.CollectionID, h.Checked); err != nil {
			return err
		}
		if err := saveSnapshots(ctx, tx, run.SiteID, h.Snapshots); err != nil {
			return err
		}
		if err := d.saveSnapshotQueue(ctx, tx, run.SiteID, h.Pending); err != nil {
			return err
		}
		if err := d.saveWatched(ctx, tx, run.CollectionID, h); err != nil {
			return err
		}
		if err := saveLearned(ctx, tx, run.SiteID, h.Learned, run.FinishedAt); err != nil {
			return err
		}
		// What the site stores changed: the next sweep measures it.
		if _, err := tx.ExecContext(ctx, `UPDATE sites SET measured_at = NULL WHERE id = ?`, run.SiteID); err != nil {
			return err
		}
		// After the pages: the "now following" entry counts them.
		if run.Following, run.Pages, err = d.markFollowing(ctx, tx, run); err != nil {
			return err
		}
		if h.State != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE collections SET state = ? WHERE id = ?`, *h.State, run.CollectionID); err != nil {
				return err
			}
		}
		var success any
		if run.Error == "" {
			success = fmtTime(run.FinishedAt)
		}
		_, err = tx.ExecContext(ctx, `
UPDATE collections SET
	last_processed_at = COALESCE(?, last_processed_at),
	last_success_at = COALESCE(?, last_success_at),
	handed_over = CASE WHEN ? = '' THEN FALSE ELSE handed_over END,
	last_harvest_at = ?, last_error = ?
WHERE id = ?`, fmtTimePtr(h.Watermark), success, run.Error, fmtTime(run.FinishedAt), run.Error, run.CollectionID)
		return err
	})
	if err != nil {
		return Run{}, fmt.Errorf("db: store harvest of collection %d: %w", run.CollectionID, err)
	}
	return run, nil
}

// markFollowing makes run the collection's "now following" run when it is
// its first without an error, before last_success_at records it: with the
// pages known then and the newest change stored, which bounds what the
// entry lists.
func (d *DB) markFollowing(ctx context.Context, tx *sql.Tx, run Run) (bool, int, error) {
	if run.Error != "" {
		return false, 0, nil
	}
	var first bool
	if err := tx.QueryRowContext(ctx, `SELECT last_success_at IS NULL FROM collections WHERE id = ?`, run.CollectionID).Scan(&first); err != nil {
		return false, 0, fmt.Errorf("check first harvest: %w", err)
	}
	if !first {
		return false, 0, nil
	}
	// Protocols that keep a page list (SCP, ARC, sitemaps, watched
	// pages) know their pages; for change lists, a page is a URL whose
	// latest change did not delete it.
	var pages int
	err := tx.QueryRowContext(ctx, d.eng.pick(`
SELECT max((SELECT count(*) FROM pages WHERE collection_id = ?1),
	(SELECT count(*) FROM watched_pages WHERE collection_id = ?1),
	(SELECT count(*) FROM (SELECT kind, max(datetime) FROM changes WHERE collection_id = ?1 GROUP BY url) WHERE kind <> 'deleted'))`, `
SELECT GREATEST((SELECT count(*) FROM pages WHERE collection_id = ?1),
	(SELECT count(*) FROM watched_pages WHERE collection_id = ?1),
	(SELECT count(*) FROM (SELECT DISTINCT ON (url) kind FROM changes WHERE collection_id = ?1
		ORDER BY url, datetime DESC) AS latest WHERE kind <> 'deleted'))`),
		run.CollectionID).Scan(&pages)
	if err != nil {
		return false, 0, fmt.Errorf("count pages: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET following = TRUE, pages = ?,
	last_change_id = COALESCE((SELECT max(id) FROM changes WHERE collection_id = ?), 0) WHERE id = ?`,
		pages, run.CollectionID, run.ID)
	if err != nil {
		return false, 0, fmt.Errorf("mark first harvest: %w", err)
	}
	return true, pages, nil
}

// SaveSiteHarvest stores the site-level run of a harvest and the fetch state
// of site-level documents. When the site is next due is set only by
// FinishSiteHarvest, once every collection is stored: a harvest cut short
// leaves the site due, and a restart resumes it.
func (d *DB) SaveSiteHarvest(ctx context.Context, run Run, states []FetchState) (Run, error) {
	err := d.inTxRetry(ctx, func(tx *sql.Tx) error {
		id, err := d.insertRun(ctx, tx, run)
		if err != nil {
			return err
		}
		run.ID = id
		if err := saveFetchStates(ctx, tx, run.SiteID, states); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sites SET last_harvest_at = ?, last_error = ? WHERE id = ?`,
			fmtTime(run.FinishedAt), run.Error, run.SiteID)
		return err
	})
	if err != nil {
		return Run{}, fmt.Errorf("db: store harvest of site %d: %w", run.SiteID, err)
	}
	return run, nil
}

// insertChanges inserts the changes of a run, skipping those already
// stored, and counts the new ones: changes for the feed, and history.
// (Multi-row INSERTs were tried: they cut user time but added more system
// time than they saved.)
func insertChanges(ctx context.Context, tx *sql.Tx, run Run, changes []Change) (fresh, history int, err error) {
	// Prepared once: preparing per row cost a third of storing a
	// 50,000-entry list (BenchmarkBigChangeList).
	ins, err := tx.PrepareContext(ctx, `
INSERT INTO changes (collection_id, url, kind, datetime, run_id, source, title, summary, author, language, tags, from_lastmod, text_change, diff)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return 0, 0, err
	}
	defer ins.Close()
	// Most changes (a change list's, every one a listed source finds)
	// carry none of the texts: binding seven empty values a row through
	// cgo was a sixth of storing them.
	bare, err := tx.PrepareContext(ctx, `
INSERT INTO changes (collection_id, url, kind, datetime, run_id, source, from_lastmod)
VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
	if err != nil {
		return 0, 0, err
	}
	defer bare.Close()
	// mattn/go-sqlite3 runs each statement given a cancellable context on
	// a goroutine of its own, to interrupt it; for 50,000 short inserts the
	// thread hand-offs cost more than the inserts. The context is checked
	// between batches of rows instead.
	execCtx := context.WithoutCancel(ctx)
	for i, c := range byKey(changes) {
		if i%1024 == 0 && ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		var runID any
		if !c.History {
			runID = run.ID
		}
		var res sql.Result
		if c.Title == "" && c.Summary == "" && c.Author == "" && c.Language == "" && len(c.Tags) == 0 && c.TextChange == "" && c.Diff == "" {
			res, err = bare.ExecContext(execCtx, run.CollectionID, c.URL, c.Kind, fmtTime(c.Datetime), runID, c.Source, c.FromLastmod)
		} else {
			res, err = ins.ExecContext(execCtx,
				run.CollectionID, c.URL, c.Kind, fmtTime(c.Datetime), runID, c.Source, c.Title, c.Summary,
				c.Author, c.Language, strings.Join(c.Tags, "\n"), c.FromLastmod, c.TextChange, storedDiff(c.Diff))
		}
		if err != nil {
			return 0, 0, fmt.Errorf("insert change %s: %w", c.URL, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			if c.History {
				history++
			} else {
				fresh++
			}
		}
	}
	return fresh, history, nil
}

// byKey returns the changes in the order of the changes table's unique
// index. Inserting in that order keeps the index's B-tree writes local
// instead of scattered over the file: it took a third off storing a
// 50,000-entry list, most of it system time.
func byKey(changes []Change) []*Change {
	out := make([]*Change, len(changes))
	for i := range changes {
		out[i] = &changes[i]
	}
	slices.SortFunc(out, func(a, b *Change) int {
		return cmp.Or(strings.Compare(a.URL, b.URL), strings.Compare(a.Kind, b.Kind), a.Datetime.Compare(b.Datetime))
	})
	return out
}

// runOrderLock is the advisory lock under which PostgreSQL numbers runs.
const runOrderLock = 2026112521

// insertRun inserts a run and returns its id. Run ids must grow in the
// order runs commit: the notifier reads up to the largest id it sees and
// takes every run below it as read (see NotifyScope). SQLite's one writer
// gives that order; on PostgreSQL, where several processes store at once,
// the transaction takes a lock before it numbers its run and holds it
// until it commits, so a run numbered later commits later. It is the
// transaction's first statement, so no transaction waits for it holding
// anything another needs; what it serializes is the storing of harvests,
// never their fetching.
func (d *DB) insertRun(ctx context.Context, tx *sql.Tx, r Run) (int64, error) {
	if d.eng == postgresEngine {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(runOrderLock)); err != nil {
			return 0, fmt.Errorf("wait to number the run: %w", err)
		}
	}
	var coll any
	if r.CollectionID != 0 {
		coll = r.CollectionID
	}
	var id int64
	err := tx.QueryRowContext(ctx, `
INSERT INTO runs (site_id, collection_id, started_at, finished_at, documents, not_modified, changes, backfilled, lastmod_only, warnings, error)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		r.SiteID, coll, fmtTime(r.StartedAt), fmtTime(r.FinishedAt), r.Documents, r.NotModified,
		r.Changes, r.Backfilled, r.LastmodOnly, strings.Join(r.Warnings, "\n"), r.Error).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert run: %w", err)
	}
	return id, nil
}

func saveFetchStates(ctx context.Context, tx *sql.Tx, siteID int64, states []FetchState) error {
	for _, s := range states {
		_, err := tx.ExecContext(ctx, `
INSERT INTO fetch_state (site_id, url, etag, last_modified, memo, digest, fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site_id, url) DO UPDATE SET
	etag = excluded.etag, last_modified = excluded.last_modified,
	memo = excluded.memo, digest = excluded.digest, fetched_at = excluded.fetched_at`,
			siteID, s.URL, s.ETag, s.LastModified, s.Memo, s.Digest, fmtTime(s.FetchedAt))
		if err != nil {
			return fmt.Errorf("store fetch state of %s: %w", s.URL, err)
		}
	}
	return nil
}

// FetchStates returns the stored fetch state of every document of a site,
// by URL.
func (d *DB) FetchStates(ctx context.Context, siteID int64) (map[string]FetchState, error) {
	rows, err := d.r.QueryContext(ctx, `SELECT url, etag, last_modified, memo, digest, fetched_at FROM fetch_state WHERE site_id = ?`, siteID)
	if err != nil {
		return nil, fmt.Errorf("db: load fetch state of site %d: %w", siteID, err)
	}
	defer rows.Close()
	out := map[string]FetchState{}
	for rows.Next() {
		var s FetchState
		if err := rows.Scan(&s.URL, &s.ETag, &s.LastModified, &s.Memo, &s.Digest, timeCol{&s.FetchedAt}); err != nil {
			return nil, fmt.Errorf("db: load fetch state of site %d: %w", siteID, err)
		}
		out[s.URL] = s
	}
	return out, rows.Err()
}

// FinishSiteHarvest records that a site's harvest is complete: when it is
// next due, and its failing streak (counted up when failed, ended
// otherwise). It returns the streak's length and start after the update.
func (d *DB) FinishSiteHarvest(ctx context.Context, siteID int64, at time.Time, failed bool, next time.Time) (failures int, since *time.Time, err error) {
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		if failed {
			_, err := tx.ExecContext(ctx, `UPDATE sites SET next_harvest_at = ?, failures = failures + 1,
	failing_since = COALESCE(failing_since, ?) WHERE id = ?`, fmtTime(next), fmtTime(at), siteID)
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sites SET next_harvest_at = ?, failures = 0, failing_since = NULL WHERE id = ?`, fmtTime(next), siteID)
		return err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("db: finish harvest of site %d: %w", siteID, err)
	}
	s, err := d.SiteByID(ctx, siteID)
	return s.Failures, s.FailingSince, err
}

// SetNextHarvest sets when a site is next due.
func (d *DB) SetNextHarvest(ctx context.Context, siteID int64, next time.Time) error {
	if _, err := d.w.ExecContext(ctx, `UPDATE sites SET next_harvest_at = ? WHERE id = ?`, fmtTime(next), siteID); err != nil {
		return fmt.Errorf("db: set next harvest of site %d: %w", siteID, err)
	}
	return nil
}
