package harvest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"tidings/db"
	"tidings/source"
)

// siteStep is the site-level part of a harvest: the discovery made, and
// the session that made it, whose budget the collections share.
type siteStep struct {
	s       *session
	started time.Time
	disc    *Discovery
	err     error
	keep    map[string]bool // protocols whose stored collections stay
	full    bool            // every protocol looked everywhere
	// warned are the site-level run's warnings with their findings, as
	// storeSite records them.
	warned []Warning
}

// harvest harvests a site: the site-level step (given by Follow, else run
// here), then every collection. rediscover asks for a full discovery.
func (h *Harvester) harvest(ctx context.Context, site db.Site, st *siteStep, rediscover bool) (*SiteReport, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, h.opts.SiteTimeout, ErrSiteTimeout)
	defer cancel()
	if st == nil {
		ctx = h.withSiteBytes(ctx)
	}
	defer h.client.HoldRobots(site.URL)()
	// What was read is stored even when the site ran out of time.
	dbctx := context.WithoutCancel(ctx)
	known, err := h.store.FetchStates(ctx, site.ID)
	if err != nil {
		return nil, err
	}
	stored, err := h.store.Collections(ctx, db.CollectionFilter{SiteID: site.ID, ActiveOnly: true})
	if err != nil {
		return nil, err
	}
	if st == nil {
		s := newSession(h.client, known)
		s.budget, s.docTimeout = h.newBudget(), h.opts.DiscoveryDocTimeout
		st = &siteStep{s: s, started: h.opts.Now()}
		rctx, cancel := context.WithTimeout(ctx, h.opts.DiscoveryDocTimeout)
		loadRobots(rctx, h.client, site.URL, known)
		cancel()
		h.discover(ctx, st, site, stored, rediscover)
	}
	cols, siteRun, err := h.storeSite(dbctx, &site, stored, known, st)
	if err != nil {
		return nil, err
	}
	rep := &SiteReport{Site: site, Run: siteRun, Warned: st.warned}
	failed, wait, err := h.harvestCollections(ctx, rep, cols, known, st)
	if st.s.reading != nil {
		h.noteSpent(dbctx, site, st.s.reading.rules)
	}
	if err != nil {
		return rep, err
	}
	failed = failed || siteRun.Error != ""
	next := h.nextHarvest(st.started, failed, site.Failures, wait)
	if r := st.s.reading; r != nil && r.queuedLater && !failed {
		// The pages a follow queued are read by the next harvest, now.
		next = st.started
	}
	if _, _, err := h.store.FinishSiteHarvest(dbctx, site.ID, st.started, failed, next); err != nil {
		return rep, err
	}
	rep.Site.NextHarvestAt = &next
	if h.opts.AfterHarvest != nil {
		h.opts.AfterHarvest(ctx, rep)
	}
	rep.log(h.opts.Logger, h.opts.Now().Sub(st.started))
	if st.err != nil && len(stored) == 0 {
		return rep, st.err
	}
	return rep, nil
}

// discover runs the site-level step for a site already followed. Looking
// for change information everywhere it may be published costs a site
// several requests that mostly answer 404 (well-known places, the home
// page, sitemap.xml), so a harvest does it only when asked (following the
// site again), when none succeeded within Options.DiscoveryInterval, or
// when what was known is gone. Otherwise it re-reads, conditionally, what
// the site pointed to before; see rechecker.
func (h *Harvester) discover(ctx context.Context, st *siteStep, site db.Site, stored []db.Collection, rediscover bool) {
	keys := map[string]bool{}
	for _, c := range stored {
		keys[c.Key] = true
	}
	if !rediscover && site.DiscoveredAt != nil && st.started.Sub(*site.DiscoveredAt) < h.opts.DiscoveryInterval {
		sd := newSiteDiscovery(h, st.s, site.URL, site.InputURL, site, keys, false)
		sd.quick = true
		st.disc, st.err = sd.run(ctx)
		st.keep = sd.keep
		if !sd.rediscover {
			return
		}
	}
	sd := newSiteDiscovery(h, st.s, site.URL, site.InputURL, site, keys, site.Title == "")
	sd.stored = stored
	st.disc, st.err = sd.run(ctx)
	st.keep, st.full = sd.keep, true
}

// collectionsBefore is the warning of a site whose discovery failed.
const collectionsBefore = "harvesting the collections found before"

// storeSite stores the site-level run. What discovery found becomes the
// site's collections, a protocol kept keeping its stored ones; when it
// failed, the stored collections are harvested as they are.
func (h *Harvester) storeSite(ctx context.Context, site *db.Site, stored []db.Collection, known map[string]db.FetchState, st *siteStep) ([]db.Collection, db.Run, error) {
	disc := st.disc
	run := db.Run{SiteID: site.ID, StartedAt: st.started, Warnings: disc.Warnings}
	st.warned = slices.Clone(disc.Warned)
	cols := stored
	if st.err != nil {
		run.Error = st.err.Error()
		if len(stored) > 0 {
			run.Warnings = append(run.Warnings, collectionsBefore)
			st.warned = append(st.warned, Warning{Text: collectionsBefore})
		}
	} else {
		for _, c := range stored {
			if st.keep[c.Protocol] {
				disc.Collections = append(disc.Collections, db.CollectionSpec{Protocol: c.Protocol, Key: c.Key, SourceURL: c.SourceURL})
			}
		}
		if err := h.updateSite(ctx, site, disc); err != nil {
			return nil, db.Run{}, err
		}
		handOver(site.URL, stored, disc.Collections)
		var err error
		if cols, err = h.store.SyncCollections(ctx, site.ID, disc.Collections); err != nil {
			return nil, db.Run{}, err
		}
		if st.full && len(st.keep) == 0 {
			if err := h.store.SetDiscovered(ctx, site.ID, st.started); err != nil {
				return nil, db.Run{}, err
			}
		}
	}
	if rs, ok := robotsState(h.client, site.URL, known); ok {
		st.s.states = append(st.s.states, rs)
	}
	run.Documents, run.NotModified = st.s.documents, st.s.notModified
	run.FinishedAt = h.opts.Now()
	run, err := h.store.SaveSiteHarvest(ctx, run, st.s.states)
	return cols, run, err
}

// updateSite records where the site's change information now is and the
// site's title. A source that could not look this time said where it was
// before (SiteDiscovery.SetSourceURL).
func (h *Harvester) updateSite(ctx context.Context, site *db.Site, disc *Discovery) error {
	source, title := disc.SourceURL, site.Title
	if title == "" {
		title = disc.SiteTitle
	}
	if source == site.SourceURL && title == site.Title {
		return nil
	}
	if err := h.store.UpdateSiteSource(ctx, site.ID, source, title); err != nil {
		return err
	}
	site.SourceURL, site.Title = source, title
	return nil
}

// harvestCollections harvests each collection into rep. failed: the site
// ran out of time, or every collection failed.
func (h *Harvester) harvestCollections(ctx context.Context, rep *SiteReport, cols []db.Collection, known map[string]db.FetchState, st *siteStep) (failed bool, wait time.Duration, err error) {
	wait = st.s.retryAfter
	allFailed := len(cols) > 0
	for _, c := range cols {
		if err := ctx.Err(); err != nil {
			if !errors.Is(context.Cause(ctx), ErrSiteTimeout) {
				return true, wait, err
			}
			// The collections left wait for the next try, soon.
			cut := db.Run{SiteID: rep.Site.ID, StartedAt: st.started, FinishedAt: h.opts.Now(), Error: fmt.Sprintf(
				"tidings stopped harvesting this site after %s (the limit for one site); %d collection(s) wait for the next try",
				h.opts.SiteTimeout, len(cols)-len(rep.Collections))}
			rep.Run, err = h.store.SaveSiteHarvest(context.WithoutCancel(ctx), cut, nil)
			return true, wait, err
		}
		cr, ra, err := h.harvestCollection(ctx, rep.Site, c, known, st.s)
		if err != nil {
			return true, wait, err
		}
		wait = max(wait, ra)
		allFailed = allFailed && cr.Run.Error != ""
		// The report tells the collection as stored now: what it watches,
		// what it counts, after this harvest rather than before.
		if now, err := h.store.CollectionByID(context.WithoutCancel(ctx), c.ID); err == nil {
			cr.Collection = now
		}
		rep.Collections = append(rep.Collections, cr)
	}
	return allFailed, wait, nil
}

// handOver marks each new collection that stands for the same part of the
// site as a stored one of another source, which it replaces: a site that
// starts (or stops) publishing ResourceSync beside its sitemap keeps the
// feed its followers subscribed to, fed by the new source from now on.
func handOver(siteURL string, stored []db.Collection, specs []db.CollectionSpec) {
	type id struct{ protocol, key string }
	listed := map[id]bool{}
	for _, s := range specs {
		listed[id{s.Protocol, s.Key}] = true
	}
	had := map[id]bool{}
	for _, c := range stored {
		had[id{c.Protocol, c.Key}] = true
	}
	taken := map[int64]bool{}
	for i := range specs {
		s := &specs[i]
		if had[id{s.Protocol, s.Key}] {
			continue
		}
		home := source.Home(s.Protocol, s.Key, siteURL)
		for _, c := range stored {
			going := !listed[id{c.Protocol, c.Key}]
			if going && c.Protocol != s.Protocol && !taken[c.ID] && source.Home(c.Protocol, c.Key, siteURL) == home {
				s.Replaces, taken[c.ID] = c.ID, true
				break
			}
		}
	}
}
