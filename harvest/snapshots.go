package harvest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"

	"tidings/db"
	"tidings/fetch"
	"tidings/pagetext"
)

// pageReading is what one site harvest learned of its pages' text, shared by
// its collection harvests: a page in several collections of the site is
// fetched once, and they share one budget of page fetches.
type pageReading struct {
	left int
	// refunds are the page fetches given back for answers that said the
	// page had not changed, up to maxRefunds: a 304, or the very bytes
	// read last time from a server without validators, while those come
	// to no more than resentBytesPerFetch a fetch (resent counts them).
	// So every page whose change information moved, or whose turn to be
	// checked came, can be read in one harvest, while the requests and
	// bytes of one stay bounded.
	refunds, maxRefunds int
	resent, maxResent   int64
	taken               map[string]*pageNote // by URL, every page fetched or tried
	// stop: the site asked for a pause (429, 503); no page is asked for
	// until the next harvest.
	stop bool
	// queues are what each collection harvest changes of the site's
	// pages pending a snapshot, stored with it.
	queues map[int64]*db.SnapshotQueue
	// age orders the site harvest among those under way (harvestAge).
	age uint64
	// rules are the site's ignore rules: those for everyone (noise) and
	// each person's own.
	rules *siteRules
}

// noise is what the site's pages hold that changes without news: the
// ignore rules for everyone, and what was learned of the site
// (pagetext.Noise); texts are compared without it. Nil-safe.
func (ps *pageReading) noise() *pagetext.Noise {
	if ps == nil || ps.rules == nil {
		return nil
	}
	return ps.rules.everyone
}

// pageNote is what a page's snapshot says of its latest change.
type pageNote struct {
	title      string
	textChange string
	diff       string
}

func (h *Harvester) newPageReading() *pageReading {
	n := h.opts.Snapshots.PageFetches
	return &pageReading{left: n, maxRefunds: refundsPerFetch * n, maxResent: resentBytesPerFetch * int64(n), taken: map[string]*pageNote{}, queues: map[int64]*db.SnapshotQueue{},
		age: harvestAge.Add(1)}
}

// refundsPerFetch bounds the refunds of a site harvest: with the default
// --page-fetches (100), at most 1,000 page requests, of which 100 full
// reads.
const refundsPerFetch = 9

// resentBytesPerFetch bounds what the pages a server without validators
// sends again unchanged may add up to, for their fetches to be given
// back: with the default --page-fetches, 15.6 MiB a site harvest, so a
// site of small pages is read whole every harvest, and one of big pages
// cannot make a harvest download without end.
const resentBytesPerFetch = 160 << 10

// refund gives back the page fetch of a read that found the page as it
// was.
func (ps *pageReading) refund(r PageRead) {
	if ps.refunds >= ps.maxRefunds {
		return
	}
	switch {
	case r.NotModified:
	case r.Resent && ps.resent+int64(len(r.Resp.Body)) <= ps.maxResent:
		ps.resent += int64(len(r.Resp.Body))
	default:
		return
	}
	ps.refunds++
	ps.left++
}

// queue is what the harvest of collection id changes of the site's pending
// pages, to store with it.
func (ps *pageReading) queue(id int64) db.SnapshotQueue {
	if q := ps.queues[id]; q != nil {
		return *q
	}
	return db.SnapshotQueue{}
}

// queuedHarvests bounds a site's queue of pages pending a snapshot to what
// this many harvests' budgets read: a first harvest of a big collection
// must not queue thousands of pages to read a hundred a day, long after
// their entries have left the feed. The pages of the latest changes stay.
const queuedHarvests = 10

// takeSnapshots fetches the pages j's created and updated changes name,
// within the site's budget of page fetches, newest changes first, and
// says on each change what its text gained and lost. It returns the
// snapshots to store with the changes. A page that cannot be read keeps
// its change without text, with a warning; nothing here fails a harvest.
//
// Pages past the budget keep their changes without a diff and are queued:
// a later harvest fetches them first, before its own changes' pages, and
// fills their changes in (ps.queue), unless a later change of the page
// came first and takes its snapshot instead. The pages of changes stored
// as history (older than the first-harvest window) are read last, on the
// collection's first harvest only, for a baseline; the queue's bound keeps
// a big collection to what ten harvests' budgets read. A page whose text the change information carried
// (SCP content blocks) is not fetched and costs no fetch from the budget.
func (h *Harvester) takeSnapshots(ctx context.Context, j *CollectionRun, ps *pageReading) []db.Snapshot {
	if h.opts.Snapshots.Off || ctx.Err() != nil {
		return nil
	}
	q := &db.SnapshotQueue{}
	ps.queues[j.col.ID] = q
	newest := newestChanges(j.changes)
	due := h.duePages(ctx, j, ps, newest, q)
	// A collection's first harvest also reads, after its news, the pages
	// it records as already seen: their snapshots are the baseline the
	// first update compares with, or that update could say only
	// "updated". What the budget leaves is queued and read first later.
	todo, deleted := pagesToRead(j.changes, newest, ps, j.first)
	given, todo := splitGiven(todo, j.given)
	budget := max(ps.left-len(due), 0)
	q.Keep = queuedHarvests * h.opts.Snapshots.PageFetches
	past := todo[min(len(todo), budget):]
	for _, u := range past[:min(len(past), q.Keep)] {
		q.Queue = append(q.Queue, pendingOf(&j.changes[newest[u]]))
	}
	todo = todo[:min(len(todo), budget)]
	q.Done = append(q.Done, deleted...)
	q.Done = append(q.Done, given...)
	prev, err := h.store.Snapshots(ctx, j.site.ID, slices.Concat(dueURLs(due), given, todo, deleted))
	if err != nil {
		h.opts.Logger.Error("load page snapshots", "site", j.site.URL, "error", err.Error())
		return nil
	}
	var out []db.Snapshot
	for _, p := range due {
		if sh, snap, ok := h.readPage(ctx, j, ps, p.URL, p.Kind, prev); ok {
			q.Done = append(q.Done, p.URL)
			q.Fills = append(q.Fills, db.TextFill{PendingText: p, Title: sh.title, TextChange: sh.textChange, Diff: sh.diff})
			out = appendSnap(out, snap)
		}
	}
	for _, u := range given {
		if !extractions.acquire(ctx, ps.age) {
			break
		}
		p, had := prev[u]
		sh, snap := givenNote(j, u, j.changes[newest[u]].Kind, j.given[u], p, had)
		extractions.release()
		ps.taken[u] = sh
		out = append(out, *snap)
	}
	for _, u := range todo {
		if _, snap, ok := h.readPage(ctx, j, ps, u, j.changes[newest[u]].Kind, prev); ok {
			q.Done = append(q.Done, u)
			out = appendSnap(out, snap)
		} else {
			q.Queue = append(q.Queue, pendingOf(&j.changes[newest[u]]))
		}
	}
	applyNotes(j.changes, newest, prev, ps)
	return out
}

// applyNotes titles j's changes from their pages' snapshots, and says on
// each page's latest change what its text did.
func applyNotes(changes []db.Change, newest map[string]int, prev map[string]db.Snapshot, ps *pageReading) {
	for i := range changes {
		c := &changes[i]
		if c.Kind == "deleted" {
			if p, ok := prev[c.URL]; ok && c.Title == "" {
				c.Title = p.Title
			}
			continue
		}
		sh, ok := ps.taken[c.URL]
		if !ok {
			continue
		}
		if c.Title == "" {
			c.Title = sh.title
		}
		if i == newest[c.URL] {
			c.TextChange, c.Diff = sh.textChange, sh.diff
		}
	}
}

// readPage takes the snapshot of page u, once a site harvest, within the
// budget: ok is false when the page was not asked for (no budget left, the
// site asked for a pause, the harvest is ending), so that it stays due.
func (h *Harvester) readPage(ctx context.Context, j *CollectionRun, ps *pageReading, u, kind string, prev map[string]db.Snapshot) (*pageNote, *db.Snapshot, bool) {
	if sh := ps.taken[u]; sh != nil {
		return sh, nil, true
	}
	if ps.stop || ps.left <= 0 || ctx.Err() != nil {
		return nil, nil, false
	}
	ps.left--
	p, had := prev[u]
	sh, snap := h.readAndCompare(ctx, j, ps, u, kind, p, had)
	if ps.stop || ctx.Err() != nil {
		// Not answered: the page is asked for again next time.
		ps.left++
		return nil, nil, false
	}
	ps.taken[u] = sh
	return sh, snap, true
}

func appendSnap(out []db.Snapshot, snap *db.Snapshot) []db.Snapshot {
	if snap == nil {
		return out
	}
	return append(out, *snap)
}

// duePages returns the collection's pages pending a snapshot from earlier
// harvests, latest change first, as many as the budget has room for. A
// page this harvest has a change of is no longer due: that change takes
// its snapshot, or its place in the queue.
func (h *Harvester) duePages(ctx context.Context, j *CollectionRun, ps *pageReading, newest map[string]int, q *db.SnapshotQueue) []db.PendingText {
	if ps.left <= 0 || ps.stop {
		return nil
	}
	list, err := h.store.PendingTexts(ctx, j.site.ID, j.col.ID, ps.left+len(newest))
	if err != nil {
		h.opts.Logger.Error("load pages pending a snapshot", "site", j.site.URL, "error", err.Error())
		return nil
	}
	var due []db.PendingText
	for _, p := range list {
		if _, later := newest[p.URL]; later {
			q.Done = append(q.Done, p.URL)
			continue
		}
		if len(due) < ps.left {
			due = append(due, p)
		}
	}
	return due
}

func dueURLs(due []db.PendingText) []string {
	out := make([]string, len(due))
	for i, p := range due {
		out[i] = p.URL
	}
	return out
}

func pendingOf(c *db.Change) db.PendingText {
	return db.PendingText{CollectionID: c.CollectionID, URL: c.URL, Kind: c.Kind, Datetime: c.Datetime}
}

// newestChanges maps each URL to the index of its latest change.
func newestChanges(changes []db.Change) map[string]int {
	newest := make(map[string]int, len(changes))
	for i, c := range changes {
		if k, ok := newest[c.URL]; !ok || !c.Datetime.Before(changes[k].Datetime) {
			newest[c.URL] = i
		}
	}
	return newest
}

// pagesToRead lists the pages to fetch, newest change first: those whose
// latest change is a creation or an update in the feed, not already read
// in this site harvest; and the deleted pages, whose last known title is
// looked up.
func pagesToRead(changes []db.Change, newest map[string]int, ps *pageReading, baseline bool) (todo, deleted []string) {
	var idx, old []int
	for u, i := range newest {
		c := &changes[i]
		switch {
		case c.Kind == "deleted":
			deleted = append(deleted, u)
		case ps.taken[u] != nil:
		case c.History && baseline:
			old = append(old, i)
		case !c.History:
			idx = append(idx, i)
		}
	}
	latestFirst := func(a, b int) int { return compareKeys(keyOf(&changes[b]), keyOf(&changes[a])) }
	slices.SortFunc(idx, latestFirst)
	slices.SortFunc(old, latestFirst)
	for _, i := range slices.Concat(idx, old) {
		todo = append(todo, changes[i].URL)
	}
	return todo, deleted
}

// splitGiven takes out of todo the pages whose text the change
// information gave, keeping the order of both.
func splitGiven(todo []string, texts map[string]givenPage) (given, rest []string) {
	if len(texts) == 0 {
		return nil, todo
	}
	for _, u := range todo {
		if _, ok := texts[u]; ok {
			given = append(given, u)
		} else {
			rest = append(rest, u)
		}
	}
	return given, rest
}

// readAndCompare reads one page with the page reader, conditionally on its
// previous snapshot, and compares its text with it. The snapshot
// returned, nil when nothing new was read, is stored as the page's latest.
func (h *Harvester) readAndCompare(ctx context.Context, j *CollectionRun, ps *pageReading, url, kind string, prev db.Snapshot, had bool) (*pageNote, *db.Snapshot) {
	sh := &pageNote{title: prev.Title}
	r, err := h.readText(ctx, ps.age, j.now, url, prev, had, ReadOptions{Conditional: true, Noise: ps.noise(), Marks: ps.rules.marks()})
	if err == nil {
		ps.refund(r)
		ps.rules.cover(url, r.Covered)
	}
	switch {
	case errors.Is(err, errNoTurn):
		return sh, nil
	case tooLarge(err):
		j.warn.add("the page %s is larger than tidings reads for its text (%s, --snapshot-max-body); its change is kept without its text",
			url, fetch.SizeString(int64(h.opts.Snapshots.MaxBody)))
		return sh, nil
	case r.Resp != nil && err != nil:
		j.warn.add("the text of the page %s could not be read; its change is kept without it", url)
		return sh, nil
	case err != nil:
		var fe *fetch.FetchError
		if errors.As(err, &fe) && fe.RetryAfter > 0 {
			j.s.noteRetryAfter(err)
			ps.stop = true
		}
		if ctx.Err() == nil {
			j.warn.add("%s; its change is kept without its text", roleError("the page", err))
		}
		return sh, nil
	case r.NotModified, r.SameBytes:
		if had && prev.Text != nil {
			sh.textChange = db.TextUnchanged
		}
		return sh, r.Snapshot
	}
	for _, w := range r.Text.Warnings() {
		j.warn.add("%s: %s", url, w)
	}
	sh.title = r.Text.Title
	sh.textChange, sh.diff = compareText(kind, prev, had, r.Text, max(h.opts.Snapshots.MaxText, pagetext.DefaultMaxText)*4, ps.noise())
	return sh, r.Snapshot
}

// contentHashBytes is how much of a body's SHA-256 a snapshot keeps: it
// only tells the same bytes served again, and only the site itself could
// make two bodies collide, to hide its own change.
const contentHashBytes = 16

// pageDigest is a body's hash as a snapshot keeps it (db.Snapshot's
// ContentHash), to tell whether a page sends the same bytes again.
func pageDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:contentHashBytes])
}

// lastModified is the Last-Modified kept of a page: a server asked with
// If-None-Match ignores If-Modified-Since (RFC 9110, 13.1.3), so only
// that of a page without an ETag.
func lastModified(resp *fetch.Response) string {
	if resp.ETag != "" {
		return ""
	}
	return resp.LastModified
}

// maxContentType bounds the Content-Type kept of a page.
const maxContentType = 200

// compareText says what a page's text gained and lost since its previous
// snapshot: TextChanged with the diff, TextUnchanged, or TextUnknown with
// nothing to compare (no text, or an updated page read for the first time,
// whose snapshot is then the baseline). A created page read for the first
// time shows its opening text as added. Both texts are compared without
// their noise lines (counters, timestamps, what a person asked to ignore).
func compareText(kind string, prev db.Snapshot, had bool, snap *pagetext.Snapshot, limit int, noise *pagetext.Noise) (string, string) {
	if !snap.HasText() {
		return db.TextUnknown, ""
	}
	old, known, now := "", false, snap.Text
	oldHash := ""
	if had && prev.Text != nil {
		// A snapshot that cannot be read again is as good as none.
		if t, err := pagetext.Decompress(prev.Text, limit); err == nil {
			old, known = t, true
			oldHash = pagetext.TextHash(t)
		}
		if known && noise.Rebase(prev.FetchedAt) {
			old, now = pagetext.Rebased(noise.Drop(old), noise.Drop(now), noise.Drop(snap.Unremoved))
		}
		if known && old == now {
			return db.TextUnchanged, ""
		}
	}
	if !known && kind != "created" {
		return db.TextUnknown, ""
	}
	var d pagetext.Diff
	if known {
		d = pagetext.Compare(noise.Drop(old), noise.Drop(now))
	} else {
		// A new page's change shows its opening lines; its whole text
		// would only repeat the snapshot.
		d = pagetext.Opening(noise.Drop(snap.Text))
	}
	if d.Unchanged() {
		if known {
			return db.TextUnchanged, ""
		}
		return db.TextUnknown, ""
	}
	stored, err := StoredDiffFrom(d, oldHash, len(snap.Text), snap.TextHash)
	if err != nil {
		return db.TextUnknown, ""
	}
	return db.TextChanged, stored
}

// StoredDiff is d in the form stored with a change, within the bounds
// of one change's stored diff: past them, only its counts and the new
// text's hash (pagetext.Replacement). Every source stores its diffs
// through it, so that no change costs more than its text once. textLen
// and hash are the new text's.
func StoredDiff(d pagetext.Diff, textLen int, hash string) (string, error) {
	return StoredDiffFrom(d, "", textLen, hash)
}

// StoredDiffFrom is StoredDiff where the old text's hash is known
// (pagetext.TextHash): a replacement keeps both.
func StoredDiffFrom(d pagetext.Diff, oldHash string, textLen int, hash string) (string, error) {
	b, err := json.Marshal(d)
	if err == nil && d.More == 0 && diffTooBig(len(b), textLen) {
		b, err = json.Marshal(pagetext.Replacement(d, oldHash, hash))
	}
	return string(b), err
}

// Bounds of one change's stored diff. A diff holds the lines removed and
// added, so a page rewritten whole stores both texts at every change
// (28.8 KB for a 14 KB page), while its entry shows 40 lines of it. Past
// maxStoredDiff, or past replacedOver when the diff is bigger than the
// new text (the page was mostly rewritten: the diff would mostly repeat
// both texts), only its counts are kept (pagetext.Replacement).
const (
	maxStoredDiff = 64 << 10
	replacedOver  = 8 << 10
)

func diffTooBig(size, textSize int) bool {
	return size > maxStoredDiff || (size > replacedOver && size > textSize)
}
