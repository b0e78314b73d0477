package harvest

import (
	"context"
	"time"

	"tidings/db"
	"tidings/rsync"
)

// maxChildLists bounds the change lists read from one change list index.
const maxChildLists = 1000

// collector gathers the changes of one collection's harvest.
type collector struct {
	h         *Harvester
	col       db.Collection
	watermark *time.Time // the last processing time; nil before any change
	first     bool       // no harvest of this collection has succeeded yet
	cutoff    time.Time  // on a first harvest, older changes are history
	seen      map[changeKey]bool
	changes   []db.Change
	newest    time.Time
	lastmod   int
	warn      warnings
}

type changeKey struct {
	url, kind string
	at        time.Time
}

// harvestCollection runs IFCC-0001 steps 2–4 for one collection and stores
// the result in one transaction. The returned error is only for failures of
// the store; a site's failures are recorded in the run.
func (h *Harvester) harvestCollection(ctx context.Context, site db.Site, col db.Collection, known map[string]db.FetchState) (db.Run, error) {
	now := h.opts.Now()
	s := newSession(h.client, known)
	c := &collector{
		h: h, col: col, watermark: col.LastProcessedAt, first: col.LastSuccessAt == nil,
		cutoff: now.Add(-h.opts.InitialWindow), seen: map[changeKey]bool{},
	}
	run := db.Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: now}
	if err := c.collect(ctx, s); err != nil {
		run.Error = err.Error()
	}
	run.Documents, run.NotModified = s.documents, s.notModified
	run.LastmodOnly = c.lastmod
	run.Warnings = c.warn.all()
	run.FinishedAt = h.opts.Now()
	harvest := db.CollectionHarvest{Run: run, Changes: c.changes, FetchStates: s.states}
	// The watermark moves only when every list was read: otherwise a change
	// in an unread list, older than one read, would be skipped next time.
	if run.Error == "" && !c.newest.IsZero() {
		wm := c.newest
		// A publisher's clock running ahead must not hide the changes that
		// follow, so the watermark never passes the harvest's own time.
		if wm.After(now) {
			wm = now
		}
		if c.watermark == nil || wm.After(*c.watermark) {
			harvest.Watermark = &wm
		}
	}
	return h.store.SaveCollectionHarvest(ctx, harvest)
}

func (c *collector) collect(ctx context.Context, s *session) error {
	capList, err := s.doc(ctx, "capability list", c.col.SourceURL)
	if err != nil {
		return err
	}
	if capList == nil {
		return problemf("capability list %s was not modified but nothing was remembered of it", c.col.SourceURL)
	}
	if capList.Capability != rsync.CapCapabilityList {
		return problemf("%s was expected to be a capability list but declares capability %q", c.col.SourceURL, capList.Capability)
	}
	var lists []string
	for _, e := range capList.Entries {
		if e.Capability == rsync.CapChangeList {
			lists = append(lists, e.Loc)
		}
	}
	switch len(lists) {
	case 0:
		return problemf("capability list %s names no change list, so no changes can be determined", c.col.SourceURL)
	case 1:
	default:
		c.warn.add("capability list %s names %d change lists; only the first is read", c.col.SourceURL, len(lists))
	}
	doc, err := s.doc(ctx, "change list", lists[0])
	if err != nil || doc == nil {
		return err
	}
	if !doc.IsIndex() {
		c.addEntries(doc)
		return nil
	}
	return c.collectIndex(ctx, s, doc)
}

// collectIndex reads the change lists of a change list index, skipping
// those that end strictly before the last processing time.
func (c *collector) collectIndex(ctx context.Context, s *session, index *rsync.Document) error {
	read := 0
	for _, e := range index.Entries {
		if c.watermark != nil && e.Until != nil && e.Until.Before(*c.watermark) {
			continue
		}
		if read >= maxChildLists {
			c.warn.add("change list index %s lists more than %d change lists; the rest were not read", index.URL, maxChildLists)
			break
		}
		read++
		doc, err := s.doc(ctx, "change list", e.Loc)
		if err != nil {
			return err
		}
		if doc == nil {
			continue
		}
		if doc.IsIndex() {
			c.warn.add("change list index %s points to another index, %s, which was not read", index.URL, e.Loc)
			continue
		}
		c.addEntries(doc)
	}
	return nil
}

func (c *collector) addEntries(doc *rsync.Document) {
	for _, w := range doc.Warnings {
		c.warn.add("%s", w)
	}
	for i := range doc.Entries {
		c.add(doc, &doc.Entries[i])
	}
}

func (c *collector) add(doc *rsync.Document, e *rsync.Entry) {
	if e.BadDate != "" {
		// The parser has already warned about it.
		return
	}
	switch e.Change {
	case rsync.ChangeCreated, rsync.ChangeUpdated, rsync.ChangeDeleted:
	case "":
		c.warn.add("skipped %s in %s: no rs:md change attribute", e.Loc, doc.URL)
		return
	default:
		c.warn.add("skipped %s in %s: unknown change %q", e.Loc, doc.URL, e.Change)
		return
	}
	at, fromLastmod := e.Datetime, false
	if at == nil && e.Lastmod != nil && !c.h.opts.StrictDatetime {
		at, fromLastmod = e.Lastmod, true
	}
	if at == nil {
		c.warn.add("ignored %s in %s: no datetime", e.Loc, doc.URL)
		return
	}
	if c.watermark != nil && !at.After(*c.watermark) {
		return
	}
	k := changeKey{e.Loc, e.Change, at.UTC()}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	if fromLastmod {
		c.lastmod++
	}
	if at.After(c.newest) {
		c.newest = *at
	}
	c.changes = append(c.changes, db.Change{
		CollectionID: c.col.ID, URL: e.Loc, Kind: e.Change, Datetime: at.UTC(),
		Source: doc.URL, FromLastmod: fromLastmod,
		History: c.first && at.Before(c.cutoff),
	})
}
