package harvest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"tidings/db"
	"tidings/fetch"
	"tidings/pagetext"
)

// pageShots is what one site harvest learned of its pages' text, shared by
// its collection harvests: a page in several collections of the site is
// fetched once, and they share one budget of page fetches.
type pageShots struct {
	left  int
	taken map[string]*shot // by URL, every page fetched or tried
	// stop: the site asked for a pause (429, 503); no page is asked for
	// until the next harvest.
	stop bool
}

// shot is what a page's snapshot says of its latest change.
type shot struct {
	title      string
	textChange string
	diff       string
}

func (h *Harvester) newPageShots() *pageShots {
	return &pageShots{left: h.opts.Snapshots.PageFetches, taken: map[string]*shot{}}
}

// takeSnapshots fetches the pages j's created and updated changes name,
// within the site's budget of page fetches, newest changes first, and
// says on each change what its text gained and lost. It returns the
// snapshots to store with the changes. A page that cannot be read keeps
// its change without text, with a warning; nothing here fails a harvest.
//
// Pages past the budget keep their changes without a diff; the next
// harvest that records a change of theirs takes their snapshot. Changes
// stored as history (older than the first-harvest window) are not
// fetched: no feed shows them, and the first harvest of a big collection
// must not read thousands of pages. A page whose text the change
// information carried (SCP content blocks) is not fetched and costs no
// fetch from the budget.
func (h *Harvester) takeSnapshots(ctx context.Context, j *job, ps *pageShots) []db.Snapshot {
	if h.opts.Snapshots.Off || len(j.changes) == 0 || ctx.Err() != nil {
		return nil
	}
	newest := newestChanges(j.changes)
	todo, deleted := pagesToRead(j.changes, newest, ps)
	given, todo := splitGiven(todo, j.given)
	todo = todo[:min(len(todo), max(ps.left, 0))]
	prev, err := h.store.Snapshots(ctx, j.site.ID, slices.Concat(given, todo, deleted))
	if err != nil {
		h.opts.Logger.Error("load page snapshots", "site", j.site.URL, "error", err.Error())
		return nil
	}
	var out []db.Snapshot
	for _, u := range given {
		p, had := prev[u]
		sh, snap := givenShot(j, u, j.changes[newest[u]].Kind, j.given[u], p, had)
		ps.taken[u] = sh
		out = append(out, *snap)
	}
	for _, u := range todo {
		if ps.stop || ps.left <= 0 || ctx.Err() != nil {
			break
		}
		ps.left--
		p, had := prev[u]
		sh, snap := h.takeShot(ctx, j, ps, u, j.changes[newest[u]].Kind, p, had)
		ps.taken[u] = sh
		if snap != nil {
			out = append(out, *snap)
		}
	}
	for i := range j.changes {
		c := &j.changes[i]
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
	return out
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
func pagesToRead(changes []db.Change, newest map[string]int, ps *pageShots) (todo, deleted []string) {
	var idx []int
	for u, i := range newest {
		c := &changes[i]
		switch {
		case c.Kind == "deleted":
			deleted = append(deleted, u)
		case c.History:
		case ps.taken[u] == nil:
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return compareKeys(keyOf(&changes[b]), keyOf(&changes[a])) })
	todo = make([]string, len(idx))
	for k, i := range idx {
		todo[k] = changes[i].URL
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

// takeShot fetches one page, conditionally on its previous snapshot, and
// compares its text with it. The snapshot returned, nil when nothing new
// was read, is stored as the page's latest.
func (h *Harvester) takeShot(ctx context.Context, j *job, ps *pageShots, url, kind string, prev db.Snapshot, had bool) (*shot, *db.Snapshot) {
	var cond fetch.Conditional
	if had {
		cond = fetch.Conditional{ETag: prev.ETag, LastModified: prev.LastModified}
	}
	sh := &shot{title: prev.Title}
	resp, err := h.client.Get(ctx, url, cond)
	if err != nil {
		var fe *fetch.FetchError
		if errors.As(err, &fe) && fe.RetryAfter > 0 {
			j.s.noteRetryAfter(err)
			ps.stop = true
		}
		if ctx.Err() == nil {
			j.warn.add("%s; its change is kept without its text", roleError("the page", err))
		}
		return sh, nil
	}
	if resp.NotModified {
		if had && prev.TextHash != "" {
			sh.textChange = db.TextUnchanged
		}
		return sh, nil
	}
	opts := h.opts.Snapshots
	snap, err := opts.extractor().Extract(resp.Body, resp.ContentType, resp.URL)
	if errors.Is(err, pagetext.ErrTooLarge) {
		j.warn.add("the page %s is larger than tidings reads for its text (%s, --snapshot-max-body); its change is kept without its text",
			url, fetch.SizeString(int64(opts.MaxBody)))
		return sh, nil
	}
	if err != nil {
		j.warn.add("the text of the page %s could not be read; its change is kept without it", url)
		return sh, nil
	}
	for _, w := range snap.Warnings() {
		j.warn.add("%s: %s", url, w)
	}
	sh.title = snap.Title
	sh.textChange, sh.diff = compareText(kind, prev, had, snap, max(opts.MaxText, pagetext.DefaultMaxText)*4)
	stored := &db.Snapshot{
		URL: url, FinalURL: resp.URL, Status: 200, ContentType: clipText(resp.ContentType, maxContentType),
		Title: snap.Title, Size: int64(snap.Size), ContentHash: snap.ContentHash, TextHash: snap.TextHash,
		ETag: resp.ETag, LastModified: resp.LastModified, FetchedAt: j.now,
	}
	if snap.HasText() {
		stored.Text = pagetext.Compress(snap.Text)
	}
	return sh, stored
}

// maxContentType bounds the Content-Type kept of a page.
const maxContentType = 200

// compareText says what a page's text gained and lost since its previous
// snapshot: TextChanged with the diff, TextUnchanged, or TextUnknown with
// nothing to compare (no text, or an updated page read for the first time,
// whose snapshot is then the baseline). A created page read for the first
// time shows its opening text as added.
func compareText(kind string, prev db.Snapshot, had bool, snap *pagetext.Snapshot, limit int) (string, string) {
	if !snap.HasText() {
		return db.TextUnknown, ""
	}
	old, known := "", false
	if had && prev.TextHash != "" {
		if prev.TextHash == snap.TextHash {
			return db.TextUnchanged, ""
		}
		// A snapshot that cannot be read again is as good as none.
		if t, err := pagetext.Decompress(prev.Text, limit); err == nil {
			old, known = t, true
		}
	}
	if !known && kind != "created" {
		return db.TextUnknown, ""
	}
	d := pagetext.Compare(old, snap.Text)
	if d.Unchanged() {
		if known {
			return db.TextUnchanged, ""
		}
		return db.TextUnknown, ""
	}
	b, err := json.Marshal(d)
	if err != nil {
		return db.TextUnknown, ""
	}
	return db.TextChanged, string(b)
}
