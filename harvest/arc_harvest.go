package harvest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"time"

	"tidings/arc"
	"tidings/fetch"
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
	*job
	st       arcState
	host     string       // the sitemap's host, for crawl_rate
	known    *pageset.Set // as stored, changed by this run's documents
	withdraw []string     // private pages, whose earlier changes are removed
}

// harvest reads the full sitemap (conditionally), then the delta feeds of
// the days since the later of its generated_at and the last harvest. Any
// error stores nothing of the run but the error itself.
func (arcProtocol) harvest(ctx context.Context, j *job) error {
	h := &arcHarvest{job: j}
	j.keepWatermark = true // changes come from diffing pages, not from a watermark
	if err := h.run(ctx); err != nil {
		j.changes, j.pages, j.gone, j.processed, j.state = nil, nil, nil, nil, nil
		// The documents must be read again next time.
		j.s.states = nil
		return err
	}
	return nil
}

func (h *arcHarvest) run(ctx context.Context) error {
	src := h.col.SourceURL
	if u, err := url.Parse(src); err == nil {
		h.host = u.Host
	}
	if h.col.State != "" && json.Unmarshal([]byte(h.col.State), &h.st) != nil {
		h.warn.add("the stored state of this collection could not be read; it was started afresh")
		h.st = arcState{}
	}
	h.applyRate(h.st.CrawlRate, false)
	known, err := h.pagesKnown(ctx)
	if err != nil {
		return err
	}
	h.known = pageset.New(known)
	resp, _, err := h.s.fetch(ctx, "ARC sitemap", src)
	if err != nil {
		return err
	}
	if !resp.NotModified {
		sm, err := arc.Parse(bytes.NewReader(resp.Body), arc.DetectFormat(resp.ContentType, src, resp.Body))
		if err != nil {
			return &Problem{Msg: "the ARC sitemap " + src + " is not valid: " + trimARC(err), Err: err}
		}
		h.applyRate(sm.CrawlRate, true)
		for _, w := range sm.Warnings {
			h.warn.add("%s: %s", src, w)
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
		h.s.keep(src, resp, "")
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
		h.h.client.SetHostDelay(h.host, 0)
		return
	}
	d, err := arc.ParseCrawlRate(rate)
	if err != nil {
		if fresh {
			h.warn.add("%s; requests are not slowed", err)
		}
		h.h.client.SetHostDelay(h.host, 0)
		return
	}
	h.h.client.SetHostDelay(h.host, d)
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
	done, err := h.processedDocs(ctx)
	if err != nil {
		h.warn.add("the delta feeds already read could not be loaded, so none were read: %s", err)
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
			h.processed = append(h.processed, u)
		}
	}
	h.st.DeltaDay = resume.Format(time.DateOnly)
}

// delta reads one delta feed. ok: it was read, found missing is not ok;
// retry: it failed in a way that may pass.
func (h *arcHarvest) delta(ctx context.Context, u string) (ok, retry bool) {
	resp, _, err := h.s.fetch(ctx, "delta feed", u)
	switch {
	case fetch.Gone(err):
		return false, false
	case err != nil:
		h.warn.add("%s; it will be tried again at the next harvest", err)
		return false, true
	case resp.NotModified:
		return true, false
	}
	sm, err := arc.Parse(bytes.NewReader(resp.Body), arc.DetectFormat(resp.ContentType, u, resp.Body))
	if err != nil {
		h.warn.add("the delta feed %s is not valid and was skipped: %s", u, trimARC(err))
		return true, false
	}
	h.s.keep(u, resp, "")
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

// withdrawPrivate removes the earlier changes of pages the site now marks
// private, so they leave every feed.
func (h *arcHarvest) withdrawPrivate(ctx context.Context) error {
	if len(h.withdraw) == 0 {
		return nil
	}
	n, err := h.h.store.WithdrawChanges(ctx, h.col.ID, h.withdraw)
	if err != nil {
		return err
	}
	if n > 0 {
		h.warn.add("%d earlier changes were removed from the feed: the site now asks that their pages not be indexed", n)
	}
	return nil
}

// finish hands what changed to the job, to be stored in one transaction.
func (h *arcHarvest) finish() {
	h.pages, h.gone = h.known.ToStore()
	if b, err := json.Marshal(h.st); err == nil {
		s := string(b)
		h.state = &s
	}
}
