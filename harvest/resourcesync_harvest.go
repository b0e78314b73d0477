package harvest

import (
	"context"

	"tidings/db"
	"tidings/rsync"
)

// maxChildLists bounds the change lists read from one change list index.
const maxChildLists = 1000

// harvest runs IFCC-0001 steps 2–4 for one collection: the capability
// list, its change list or change list index, and every change dated after
// the last processing time.
func (resourceSync) harvest(ctx context.Context, j *CollectionRun) error {
	// What is left past the limit is read again next time, from the
	// watermark on.
	j.limitChanges()
	if err := j.skipStoredAtWatermark(ctx); err != nil {
		return err
	}
	capList, err := j.s.doc(ctx, "capability list", j.col.SourceURL)
	if err != nil {
		return err
	}
	if capList == nil {
		return problemf("capability list %s was not modified but nothing was remembered of it", j.col.SourceURL)
	}
	if capList.Capability != rsync.CapCapabilityList {
		return problemf("%s was expected to be a capability list but declares capability %q", j.col.SourceURL, capList.Capability)
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
			return rsResourceList(ctx, j, resources[0])
		}
		// IFCC-0001: "Otherwise, no changes can be determined." The list
		// was read as asked; there is nothing to harvest, which is no
		// failure of the harvest.
		j.warn.add("capability list %s names no change list, so no changes can be determined", j.col.SourceURL)
		return nil
	case 1:
	default:
		j.warn.add("capability list %s names %d change lists; only the first is read", j.col.SourceURL, len(lists))
	}
	doc, err := j.s.docEach(ctx, "change list", lists[0], rsEach(j, lists[0]))
	if err != nil || doc == nil {
		return err
	}
	if !doc.IsIndex() {
		rsAddEntries(j, doc)
		return nil
	}
	return rsCollectIndex(ctx, j, doc)
}

// rsCollectIndex reads the change lists of a change list index, skipping
// those that end strictly before the last processing time.
func rsCollectIndex(ctx context.Context, j *CollectionRun, index *rsync.Document) error {
	wm := j.col.LastProcessedAt
	read := 0
	for _, e := range index.Entries {
		if wm != nil && e.Until != nil && e.Until.Before(*wm) {
			continue
		}
		if read >= maxChildLists {
			j.warn.add("change list index %s lists more than %d change lists; the rest were not read", index.URL, maxChildLists)
			break
		}
		read++
		doc, err := j.s.docEach(ctx, "change list", e.Loc, rsEach(j, e.Loc))
		if err != nil {
			return err
		}
		if doc == nil {
			continue
		}
		if doc.IsIndex() {
			j.warn.add("change list index %s points to another index, %s, which was not read", index.URL, e.Loc)
			continue
		}
		rsAddEntries(j, doc)
	}
	return nil
}

// rsEach records the entries of the change list at src as they are read,
// so that the list is never held whole.
func rsEach(j *CollectionRun, src string) func(*rsync.Entry) {
	return func(e *rsync.Entry) { rsAdd(j, src, e) }
}

// rsAddEntries adds what a change list says beyond the entries rsEach
// took: its warnings, and the entries of a list read before.
func rsAddEntries(j *CollectionRun, doc *rsync.Document) {
	for _, w := range doc.Warnings {
		j.warn.add("%s", w)
	}
	for i := range doc.Entries {
		rsAdd(j, doc.URL, &doc.Entries[i])
	}
}

func rsAdd(j *CollectionRun, src string, e *rsync.Entry) {
	switch e.Change {
	case rsync.ChangeCreated, rsync.ChangeUpdated, rsync.ChangeDeleted:
	case "":
		j.warn.add("skipped %s in %s: no rs:md change attribute", e.Loc, src)
		return
	default:
		j.warn.add("skipped %s in %s: unknown change %q", e.Loc, src, e.Change)
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
	if at == nil && !j.Settings().(*ResourceSyncSettings).StrictDatetime {
		if e.HasBadDate("lastmod") {
			return
		}
		at, fromLastmod = e.Lastmod, e.Lastmod != nil
	}
	if at == nil {
		j.warn.add("ignored %s in %s: no datetime", e.Loc, src)
		return
	}
	// A change dated exactly at the last processing time may be new: with
	// date-only datetimes every change of that day has that time. The
	// uniqueness of (page, kind, datetime) keeps what was stored from
	// counting twice.
	if wm := j.col.LastProcessedAt; wm != nil && at.Before(*wm) {
		return
	}
	j.record(db.Change{URL: e.Loc, Kind: e.Change, Datetime: *at, Source: src, FromLastmod: fromLastmod})
}

// skipStoredAtWatermark marks the changes stored at the last processing
// time as seen. Changes dated at it are read again (more of that instant
// may have come), and those already stored must not be recorded again:
// each would cost a page fetch for its snapshot, and be dropped by the
// store anyway.
func (j *CollectionRun) skipStoredAtWatermark(ctx context.Context) error {
	wm := j.col.LastProcessedAt
	if wm == nil {
		return nil
	}
	stored, err := j.h.store.ChangesAt(ctx, j.col.ID, *wm)
	if err != nil {
		return err
	}
	for _, c := range stored {
		j.seen[changeKey{c.URL, c.Kind, c.Datetime.UTC()}] = true
	}
	return nil
}
