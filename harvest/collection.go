package harvest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"tidings/db"
	"tidings/fetch"
)

// harvestCollection harvests one collection through its protocol, taking
// the documents the site's session already read and sharing its budget, and
// stores the result in one transaction. The returned error is only for
// failures of the store; a site's failures are recorded in the run.
//
// A harvest cut short by ctx (shutdown) is not stored: it would only record
// "context canceled" as the collection's error, and the next harvest does
// the same work again, losing nothing since the watermark did not move.
func (h *Harvester) harvestCollection(ctx context.Context, site db.Site, col db.Collection, known map[string]db.FetchState, siteSession *session) (CollectionReport, time.Duration, error) {
	now := h.opts.Now()
	s := newSession(h.client, known)
	s.budget, s.bodies, s.pages, s.passed = siteSession.budget, siteSession.bodies, siteSession.pages, siteSession.passed
	if siteSession.reading == nil {
		siteSession.reading = h.newPageReading()
		siteSession.reading.rules = h.siteRules(ctx, site)
		if siteSession.follow && h.opts.ReadPagesLater {
			// The sources read no page either: a sitemap's first harvest
			// would read its pages' baselines.
			siteSession.reading.later, siteSession.reading.left = true, 0
		}
	}
	s.reading = siteSession.reading
	j := &CollectionRun{
		h: h, s: s, site: site, col: col, now: now,
		first: col.LastSuccessAt == nil || col.HandedOver, cutoff: firstCutoff(col, now.Add(-h.opts.InitialWindow)), seen: map[changeKey]bool{},
	}
	run := db.Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: now}
	j.reading = siteSession.reading
	var failed error
	if p, ok := protocols[col.Protocol]; !ok {
		run.Error = fmt.Sprintf("this tidings does not know the protocol %q of this collection", col.Protocol)
	} else {
		j.res, failed = p.Harvest(ctx, j)
		if failed != nil {
			run.Error = failed.Error()
		}
	}
	if size, spent := siteBytesSpent(ctx); spent {
		j.warn.add("this harvest stopped downloading from the site when it had read %s, the most one harvest of a site may (--site-bytes): what it did not read waits for the next harvest",
			fetch.SizeString(size))
	}
	j.finishChanges()
	j.finishDates()
	snapshots := append(j.res.Snapshots, h.takeSnapshots(ctx, j, siteSession.reading)...)
	// After the snapshots, which give the listed sources' changes their
	// diffs.
	j.reading.rules.hide(j.changes)
	run.Documents, run.NotModified = j.s.documents, j.s.notModified
	run.LastmodOnly = j.lastmod
	run.Warnings = j.warn.all()
	rep := CollectionReport{Collection: col, Warned: j.warn.typed(), Err: failed}
	run.FinishedAt = h.opts.Now()
	stored := db.CollectionHarvest{
		Run: run, Changes: j.changes, FetchStates: j.s.states,
		Pages: j.res.Pages, Gone: j.res.Gone, Processed: j.res.Processed, State: j.res.State,
		Snapshots: snapshots, Pending: siteSession.reading.queue(col.ID),
		Checked: j.res.Checked, Watched: j.res.Watched, Learned: j.learned, Withdraw: j.res.Withdraw,
	}
	// The watermark moves only when every document was read: otherwise a
	// change in an unread one, older than one read, would be skipped next
	// time.
	if run.Error == "" && !j.res.OwnWatermark && !j.newest.IsZero() {
		wm := j.newest
		// A publisher's clock running ahead must not hide the changes that
		// follow, so the watermark never passes the harvest's own time.
		if wm.After(now) {
			wm = now
		}
		if col.LastProcessedAt == nil || wm.After(*col.LastProcessedAt) {
			stored.Watermark = &wm
		}
	}
	if ctx.Err() != nil && run.Error != "" {
		if !errors.Is(context.Cause(ctx), ErrSiteTimeout) {
			rep.Run = run
			return rep, 0, ctx.Err()
		}
		// The site took too long: say so, and store what was read.
		run.Error = fmt.Sprintf("tidings stopped harvesting this site after %s (the limit for one site)", h.opts.SiteTimeout)
		stored.Run = run
	}
	// A fetch finished just as shutdown began is still stored, whole.
	storeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	var err error
	rep.Run, err = h.store.SaveCollectionHarvest(storeCtx, stored)
	return rep, j.s.retryAfter, err
}

// storeTimeout bounds storing one harvest once shutdown has begun.
const storeTimeout = 30 * time.Second

// firstCutoff is the date before which a first harvest's changes are
// history: the first-harvest window's start, or for a collection another
// source took over, the old source's last harvest, after which the
// followers have not heard of the site's changes.
func firstCutoff(col db.Collection, window time.Time) time.Time {
	if col.HandedOver && col.LastSuccessAt != nil {
		return *col.LastSuccessAt
	}
	return window
}
