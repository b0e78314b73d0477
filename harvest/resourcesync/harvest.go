package resourcesync

import (
	"context"
	"fmt"

	"tidings/db"
	"tidings/harvest"
	"tidings/harvest/listed"
	"tidings/rsync"
)

// maxChildLists bounds the change lists read from one change list index.
const maxChildLists = 1000

// rsHarvest is one harvest of a ResourceSync collection.
type rsHarvest struct {
	*harvest.CollectionRun
	col    db.Collection
	docs   docs
	strict bool // see Settings.StrictDatetime
	// late are entries dated before the last processing time, which a
	// change list may gain after it (see takeLate).
	late []db.Change
	// deletions wait for the end of the harvest (see recordDeletions).
	deletions []db.Change
}

// maxDeletions bounds the deletions looked up in one harvest; those past
// it are recorded as they are.
const maxDeletions = 5000

// maxLate bounds the late entries looked up in one harvest.
const maxLate = 1000

// Harvest runs IFCC-0001 steps 2–4 for one collection: the capability
// list, its change list or change list index, and every change dated after
// the last processing time. A capability list with a resource list and no
// change list is harvested by comparing resource lists (see
// harvestResourceList).
func (Source) Harvest(ctx context.Context, r *harvest.CollectionRun) (harvest.Result, error) {
	strict := strictIn(r.Settings())
	j := &rsHarvest{CollectionRun: r, col: r.Collection(), strict: strict, docs: docs{host: r, cut: r.ReadAgainIfCut, now: r.Now(), strict: strict}}
	if err := j.skipStoredAtWatermark(ctx); err != nil {
		return harvest.Result{}, err
	}
	capList, err := j.docs.doc(ctx, "capability list", j.col.SourceURL)
	if err != nil {
		return harvest.Result{}, err
	}
	if capList == nil {
		return harvest.Result{}, problemf("capability list %s was not modified but nothing was remembered of it", j.col.SourceURL)
	}
	if capList.Capability != rsync.CapCapabilityList {
		return harvest.Result{}, problemf("%s was expected to be a capability list but declares capability %q", j.col.SourceURL, capList.Capability)
	}
	var lists, resources []string
	for _, e := range capList.Entries {
		switch e.Capability {
		case rsync.CapChangeList:
			lists = append(lists, e.Loc)
		case rsync.CapResourceList:
			resources = append(resources, e.Loc)
		}
	}
	switch len(lists) {
	case 0:
		if len(resources) > 0 {
			// The framework's own way to find changes without a change
			// list: compare successive resource lists.
			return harvestResourceList(ctx, r, j.docs, resources[0])
		}
		// IFCC-0001: "Otherwise, no changes can be determined." The list
		// was read as asked; there is nothing to harvest, which is no
		// failure of the harvest.
		j.Warn("capability list %s names no change list, so no changes can be determined", j.col.SourceURL)
		return harvest.Result{}, nil
	case 1:
	default:
		j.Warn("capability list %s names %d change lists; only the first is read", j.col.SourceURL, len(lists))
	}
	// What is left past the limit is read again next time, from the
	// watermark on.
	j.LimitChanges()
	var res harvest.Result
	if j.First() && len(resources) > 0 {
		// The pages the collection holds at the follow, which its first
		// entry counts: a change list freshly published names none.
		res.Pages = j.listedPages(ctx, resources[0])
	}
	err = j.changeLists(ctx, lists[0])
	// The deletions are recorded as every other change is, whether the
	// harvest ends well or not: a failed list keeps what was read before.
	if derr := j.recordDeletions(ctx); err == nil {
		err = derr
	}
	return res, err
}

// changeLists reads the change list (or index) at u and the late entries.
func (j *rsHarvest) changeLists(ctx context.Context, u string) error {
	doc, err := j.docs.docEach(ctx, "change list", u, j.each(u))
	if err != nil || doc == nil {
		return err
	}
	if !doc.IsIndex() {
		j.addEntries(doc)
	} else if err := j.collectIndex(ctx, doc); err != nil {
		return err
	}
	return j.takeLate(ctx)
}

// recordDeletions records the deletions the change list named, but not
// that of a page whose newest stored change is its deletion already and
// that this harvest did not create or update again: a collection that
// compared resource lists before it had a change list recorded that
// deletion when the page left the list, dated by that harvest, and the
// change list now names it at its own time.
func (j *rsHarvest) recordDeletions(ctx context.Context) error {
	if len(j.deletions) == 0 {
		return nil
	}
	again := map[string]bool{}
	for _, c := range j.Changes() {
		if c.Kind != rsync.ChangeDeleted {
			again[c.URL] = true
		}
	}
	var ask []string
	for i, c := range j.deletions {
		if i < maxDeletions && !again[c.URL] {
			ask = append(ask, c.URL)
		}
	}
	last, err := j.LastKinds(ctx, ask)
	if err != nil {
		return err
	}
	for i, c := range j.deletions {
		if i < maxDeletions && !again[c.URL] && last[c.URL] == rsync.ChangeDeleted {
			continue
		}
		j.Record(c)
	}
	return nil
}

// listedPages reads the resource list named beside the change list, one
// document (an index's children are not read), for the pages it lists on
// the site; none when it cannot be read, which costs nothing else.
func (j *rsHarvest) listedPages(ctx context.Context, u string) []db.Page {
	var pages []db.Page
	seen := map[string]bool{}
	doc, err := j.docs.docEach(ctx, "resource list", u, func(e *rsync.Entry) {
		if !seen[e.Loc] && len(pages) < maxListPages && j.OnSite(e.Loc, u) {
			seen[e.Loc] = true
			pages = append(pages, db.Page{URL: e.Loc, Modified: listed.NotAfter(e.Lastmod, j.Now()), Hash: resourceHash(e)})
		}
	})
	if err != nil || doc == nil || doc.IsIndex() {
		return nil
	}
	return pages
}

// takeLate records the entries dated before the last processing time that
// the collection does not store: a change list that gained an entry
// dated in the past (a change published late, a list rebuilt) would
// otherwise drop it silently. Those older than what retention deleted
// stay out, or they would come back after every sweep.
func (j *rsHarvest) takeLate(ctx context.Context) error {
	var late []db.Change
	for _, c := range j.late {
		if p := j.col.PrunedUntil; p == nil || c.Datetime.After(*p) {
			late = append(late, c)
		}
	}
	if len(late) == 0 {
		return nil
	}
	stored, err := j.StoredChanges(ctx, late)
	if err != nil {
		return err
	}
	taken := 0
	for i, c := range late {
		switch {
		case stored[i]:
		case c.Kind == rsync.ChangeDeleted:
			j.deletions = append(j.deletions, c)
			taken++
		default:
			j.Record(c)
			taken++
		}
	}
	if taken > 0 {
		j.Warn("the change list gained entries dated before the last harvest (%d); they are taken as news now", taken)
	}
	return nil
}

func problemf(format string, args ...any) error {
	return &harvest.Problem{Msg: fmt.Sprintf(format, args...)}
}

// collectIndex reads the change lists of a change list index, skipping
// those that end strictly before the last processing time.
func (j *rsHarvest) collectIndex(ctx context.Context, index *rsync.Document) error {
	wm := j.col.LastProcessedAt
	read := 0
	for _, e := range index.Entries {
		if wm != nil && e.Until != nil && e.Until.Before(*wm) {
			continue
		}
		if read >= maxChildLists {
			j.Warn("change list index %s lists more than %d change lists; the rest were not read", index.URL, maxChildLists)
			break
		}
		read++
		doc, err := j.docs.docEach(ctx, "change list", e.Loc, j.each(e.Loc))
		if err != nil {
			return err
		}
		if doc == nil {
			continue
		}
		if doc.IsIndex() {
			j.Warn("change list index %s points to another index, %s, which was not read", index.URL, e.Loc)
			continue
		}
		j.addEntries(doc)
	}
	return nil
}

// each records the entries of the change list at src as they are read,
// so that the list is never held whole.
func (j *rsHarvest) each(src string) func(*rsync.Entry) {
	return func(e *rsync.Entry) { j.add(src, e) }
}

// addEntries adds what a change list says beyond the entries each took:
// its warnings, and the entries of a list read before.
func (j *rsHarvest) addEntries(doc *rsync.Document) {
	warnings(j.CollectionRun, doc)
	for i := range doc.Entries {
		j.add(doc.URL, &doc.Entries[i])
	}
}

func (j *rsHarvest) add(src string, e *rsync.Entry) {
	switch e.Change {
	case rsync.ChangeCreated, rsync.ChangeUpdated, rsync.ChangeDeleted:
	case "":
		j.Find(harvest.Finding{Code: CodeNoChange, Document: src}, "skipped %s in %s: no rs:md change attribute", e.Loc, src)
		return
	default:
		j.Find(harvest.Finding{Code: CodeUnknownChange, Document: src}, "skipped %s in %s: unknown change %q", e.Loc, src, e.Change)
		return
	}
	// Only the date the change is dated by matters: a bad lastmod beside a
	// good datetime, or a bad from or until, costs nothing. A bad one that
	// is needed skips the entry rather than misdate it; the parser has
	// warned about it.
	at, fromLastmod := e.Datetime, false
	if at == nil && e.HasBadDate("datetime") {
		return
	}
	if at == nil && !j.strict {
		if e.HasBadDate("lastmod") {
			return
		}
		at, fromLastmod = e.Lastmod, e.Lastmod != nil
	}
	if at == nil {
		j.Find(harvest.Finding{Code: CodeNoDatetime, Document: src}, "ignored %s in %s: no datetime", e.Loc, src)
		return
	}
	// A change dated exactly at the last processing time may be new: with
	// date-only datetimes every change of that day has that time. The
	// uniqueness of (page, kind, datetime) keeps what was stored from
	// counting twice.
	// The author's note (tidings publish writes one) is the change's
	// summary, which its feed entry shows.
	c := db.Change{URL: e.Loc, Kind: e.Change, Datetime: *at, Source: src, FromLastmod: fromLastmod, Summary: e.Note}
	if wm := j.col.LastProcessedAt; wm != nil && at.Before(*wm) {
		if len(j.late) < maxLate {
			j.late = append(j.late, c)
		}
		return
	}
	if c.Kind == rsync.ChangeDeleted {
		j.deletions = append(j.deletions, c)
		return
	}
	j.Record(c)
}

// skipStoredAtWatermark marks the changes stored at the last processing
// time as seen. Changes dated at it are read again (more of that instant
// may have come), and those already stored must not be recorded again:
// each would cost a page fetch for its snapshot, and be dropped by the
// store anyway.
func (j *rsHarvest) skipStoredAtWatermark(ctx context.Context) error {
	wm := j.col.LastProcessedAt
	if wm == nil {
		return nil
	}
	stored, err := j.ChangesAt(ctx, *wm)
	if err != nil {
		return err
	}
	for _, c := range stored {
		j.MarkStored(c)
	}
	return nil
}
