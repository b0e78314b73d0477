package arc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"time"

	arcdoc "tidings/arc"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/harvest/pageset"
)

// maxDeltaDays is how many daily delta feeds one harvest probes at most.
const maxDeltaDays = 14

// arcState is an ARC collection's protocol state, stored with each
// harvest.
type arcState struct {
	// GeneratedAt is the generated_at of the newest full sitemap read:
	// deltas not newer are already in it.
	GeneratedAt *time.Time `json:"generated_at,omitempty"`
	// DeltaDay (YYYY-MM-DD) is where the next harvest starts probing delta
	// feeds: the last day probed, which may have grown since.
	DeltaDay  string `json:"delta_day,omitempty"`
	CrawlRate string `json:"crawl_rate,omitempty"`
}

// arcHarvest is one harvest of an ARC collection.
type arcHarvest struct {
	*harvest.CollectionRun
	col      db.Collection
	now      time.Time
	st       arcState
	host     string       // the sitemap's host, for crawl_rate
	known    *pageset.Set // as stored, changed by this run's documents
	withdraw []string     // private pages, whose earlier changes are removed
	res      harvest.Result
}

// Harvest reads the full sitemap (conditionally), then the delta feeds of
// the days since the later of its generated_at and the last harvest. Any
// error stores nothing of the run but the error itself.
func (Source) Harvest(ctx context.Context, r *harvest.CollectionRun) (harvest.Result, error) {
	h := &arcHarvest{CollectionRun: r, col: r.Collection(), now: r.Now()}
	if err := h.run(ctx); err != nil {
		// The documents must be read again next time.
		r.Discard()
		return harvest.Result{OwnWatermark: true}, err
	}
	// Changes come from diffing pages, not from a watermark.
	h.res.OwnWatermark = true
	return h.res, nil
}

func (h *arcHarvest) run(ctx context.Context) error {
	src := h.col.SourceURL
	if u, err := url.Parse(src); err == nil {
		h.host = u.Host
	}
	if h.col.State != "" && json.Unmarshal([]byte(h.col.State), &h.st) != nil {
		h.Warn("the stored state of this collection could not be read; it was started afresh")
		h.st = arcState{}
	}
	h.applyRate(h.st.CrawlRate, false)
	known, err := h.KnownPages(ctx)
	if err != nil {
		return err
	}
	h.known = pageset.New(known)
	resp, _, err := h.Fetch(ctx, "ARC sitemap", src)
	if err != nil {
		return err
	}
	if !resp.NotModified {
		sm, err := arcdoc.Parse(bytes.NewReader(resp.Body), arcdoc.DetectFormat(resp.ContentType, src, resp.Body))
		if err != nil {
			return &harvest.Problem{Msg: "the ARC sitemap " + src + " is not valid: " + trimARC(err), Err: err}
		}
		h.applyRate(sm.CrawlRate, true)
		for _, w := range sm.Warnings {
			h.Warn("%s: %s", src, w)
		}
		// Whatever generated_at says, the pages are compared: a site that
		// edits its sitemap without moving generated_at (by hand, or a
		// generator that stamps the build) still changed it, and a page
		// it now marks private must leave the feed. An unchanged sitemap
		// finds every page the same, and a 304 never gets here.
		at := sm.GeneratedAt
		if g := h.st.GeneratedAt; g != nil && !at.After(*g) {
			// generated_at did not move: the edits were made after it,
			// at the latest now, and dating them at the stale time would
			// put them behind entries already served (or on top of an
			// earlier change of the same page at that time).
			at = h.now
		} else {
			h.st.GeneratedAt = &at
		}
		h.applyFull(sm, src, at)
		h.Keep(src, resp, "")
	}
	h.deltas(ctx)
	if err := h.withdrawPrivate(ctx); err != nil {
		return err
	}
	h.finish()
	return nil
}

// applyRate slows the client for the sitemap's host as crawl_rate asks.
func (h *arcHarvest) applyRate(rate string, fresh bool) {
	if h.host == "" {
		return
	}
	if fresh {
		h.st.CrawlRate = rate
	}
	if rate == "" {
		h.SetHostDelay(h.host, 0)
		return
	}
	d, err := arcdoc.ParseCrawlRate(rate)
	if err != nil {
		if fresh {
			h.Warn("%s; requests are not slowed", err)
		}
		h.SetHostDelay(h.host, 0)
		return
	}
	h.SetHostDelay(h.host, d)
}

// deltas probes /arc-sitemap-deltas/YYYY-MM-DD.json day by day, from the
// later of the sitemap's generated_at and the last day probed, up to today
// and at most maxDeltaDays. A missing day is normal. A day that is over is
// marked processed once read, so it is not fetched again.
func (h *arcHarvest) deltas(ctx context.Context) {
	today := day(h.now)
	start := today.AddDate(0, 0, -(maxDeltaDays - 1))
	if g := h.st.GeneratedAt; g != nil && day(*g).After(start) {
		start = day(*g)
	}
	if last, err := time.Parse(time.DateOnly, h.st.DeltaDay); err == nil && last.After(start) {
		start = last
	}
	root, err := url.Parse(h.col.SourceURL)
	if err != nil {
		return
	}
	done, err := h.ProcessedDocs(ctx)
	if err != nil {
		h.Warn("the delta feeds already read could not be loaded, so none were read: %s", err)
		return
	}
	resume := today
	for d := start; !d.After(today); d = d.AddDate(0, 0, 1) {
		u := (&url.URL{Scheme: root.Scheme, Host: root.Host, Path: "/arc-sitemap-deltas/" + d.Format(time.DateOnly) + ".json"}).String()
		if done[u] {
			continue
		}
		over := d.Before(today)
		ok, retry := h.delta(ctx, u)
		if retry {
			resume = d
			break
		}
		if ok && over {
			h.res.Processed = append(h.res.Processed, u)
		}
	}
	h.st.DeltaDay = resume.Format(time.DateOnly)
}

// delta reads one delta feed. ok: it was read, found missing is not ok;
// retry: it failed in a way that may pass.
func (h *arcHarvest) delta(ctx context.Context, u string) (ok, retry bool) {
	resp, _, err := h.Fetch(ctx, "delta feed", u)
	switch {
	case fetch.Gone(err):
		return false, false
	case err != nil:
		h.Warn("%s; it will be tried again at the next harvest", err)
		return false, true
	case resp.NotModified:
		return true, false
	}
	sm, err := arcdoc.Parse(bytes.NewReader(resp.Body), arcdoc.DetectFormat(resp.ContentType, u, resp.Body))
	if err != nil {
		h.Warn("the delta feed %s is not valid and was skipped: %s", u, trimARC(err))
		return true, false
	}
	h.Keep(u, resp, "")
	if g := h.st.GeneratedAt; g != nil && !sm.GeneratedAt.After(*g) {
		// Generated before the full sitemap: already in it.
		return true, false
	}
	h.applyDelta(sm, u)
	return true, false
}

func day(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// withdrawPrivate has the earlier changes of pages the site now marks
// private removed, so they leave every feed, in the transaction that
// stores this harvest.
func (h *arcHarvest) withdrawPrivate(ctx context.Context) error {
	if len(h.withdraw) == 0 {
		return nil
	}
	n, err := h.StoredChangesOf(ctx, h.withdraw)
	if err != nil {
		return err
	}
	h.res.Withdraw = h.withdraw
	if n > 0 {
		h.Warn("%d earlier changes were removed from the feed: the site now asks that their pages not be indexed", n)
	}
	return nil
}

// finish hands back what changed, to be stored in one transaction.
func (h *arcHarvest) finish() {
	h.res.Pages, h.res.Gone = h.known.ToStore()
	if b, err := json.Marshal(h.st); err == nil {
		s := string(b)
		h.res.State = &s
	}
}
