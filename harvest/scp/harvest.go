package scp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"tidings/harvest"
	"tidings/harvest/pageset"
	"tidings/scpbridge"
)

// scpState is an SCP collection's own state, stored as JSON with it.
type scpState struct {
	Snapshot          string     `json:"snapshot,omitempty"` // the URL last read
	SnapshotGenerated *time.Time `json:"snapshot_generated,omitempty"`
	SnapshotRead      *time.Time `json:"snapshot_read,omitempty"` // harvest time it was read
	// Checksum is the rule the last verified checksum matched (the spec
	// allows two readings; see scpbridge), with the file's URL.
	Checksum string `json:"checksum,omitempty"`
	// Through is the generated time (as the sitemap gives it) of the newest
	// file read, snapshot or delta: what the next delta's since must not
	// pass, or the changes in between are in no file read.
	Through *time.Time `json:"through,omitempty"`
	// Gap, when set, is where changes may be missing since a delta did not
	// follow on from what was read: the newest snapshot generated after it
	// is read at the next chance, whatever the snapshot interval.
	Gap *time.Time `json:"gap,omitempty"`
}

// scpHarvest is one harvest of an SCP section.
type scpHarvest struct {
	r         *harvest.CollectionRun
	sitemap   string
	section   string
	sm        *scpbridge.Sitemap
	st        scpState
	stChanged bool
	known     *pageset.Set // as stored, changed by this run's files
	processed map[string]bool
	done      []string // documents processed by this run
	errs      []string
	// waiting: a download was answered 429 or 503 with a Retry-After; the
	// files left wait for the next harvest.
	waiting bool
	// filling is where the gap the snapshot is read to fill began.
	filling *time.Time
}

// Harvest reads the section's snapshot when due and every delta not yet
// processed, oldest first. A fatal problem in one file rejects that file
// only: the others are still read, and the run's error names it. A
// rejected snapshot in particular holds back no delta: each file says what
// it says whatever becomes of another.
func (Source) Harvest(ctx context.Context, r *harvest.CollectionRun) (harvest.Result, error) {
	col := r.Collection()
	sitemap, section := scpSection(col.Key)
	sm, err := scpFetchSitemap(ctx, r, col.SourceURL)
	if err != nil {
		return harvest.Result{}, err
	}
	h := &scpHarvest{r: r, sitemap: sitemap, section: section, sm: sm}
	if s := col.State; s != "" {
		if err := json.Unmarshal([]byte(s), &h.st); err != nil {
			r.Warn("the stored SCP state could not be read; the snapshot is read again")
			h.st = scpState{}
		}
	}
	known, err := r.KnownPages(ctx)
	if err != nil {
		return harvest.Result{}, err
	}
	h.known = pageset.New(known)
	if h.processed, err = r.ProcessedDocs(ctx); err != nil {
		return harvest.Result{}, err
	}
	if h.st.Through == nil && h.st.SnapshotGenerated != nil {
		// State kept before the chain was followed.
		t := *h.st.SnapshotGenerated
		h.st.Through = &t
	}
	if err := h.read(ctx); err != nil {
		return harvest.Result{}, err
	}
	res := h.finish()
	if len(h.errs) > 0 {
		// What the files read said is stored all the same.
		return res, &harvest.Problem{Msg: strings.Join(h.errs, "; ")}
	}
	return res, nil
}

// scpFetchSitemap fetches the sitemap conditionally; on a 304 what it said
// is taken from the memo kept with the earlier fetch.
func scpFetchSitemap(ctx context.Context, r *harvest.CollectionRun, u string) (*scpbridge.Sitemap, error) {
	resp, memo, err := r.Fetch(ctx, "sitemap", u)
	if err != nil {
		return nil, err
	}
	if resp.NotModified {
		var sm scpbridge.Sitemap
		if memo != "" && json.Unmarshal([]byte(memo), &sm) == nil {
			return &sm, nil
		}
		r.Forget(u)
		return scpFetchSitemap(ctx, r, u)
	}
	sm, err := scpbridge.ParseSitemap(bytes.NewReader(resp.Body), u)
	if err != nil {
		return nil, &harvest.Problem{Msg: fmt.Sprintf("the sitemap %s can no longer be read: %s", u, strings.TrimPrefix(err.Error(), "scpbridge: "))}
	}
	if b, err := json.Marshal(sm); err == nil {
		r.Keep(u, resp, string(b))
	}
	return sm, nil
}

// scpItem is one file to read, with the URLs of the same file in other
// compressions (a snapshot offered as both .scp.gz and .scp.zst is read
// once).
type scpItem struct {
	scpbridge.File
	urls []string
}

// offered groups the section's files, leaving out expired ones and deltas
// already processed: snapshots by generated time, deltas oldest first.
func (h *scpHarvest) offered() (snaps, deltas []scpItem) {
	type groupKey struct {
		typ, period string
		gen, since  int64
	}
	groups := map[groupKey]*scpItem{}
	var order []groupKey
	for _, f := range h.sm.Files {
		if f.Section != h.section {
			continue
		}
		if f.Expires != nil && f.Expires.Before(h.r.Now()) {
			h.r.Warn("skipped the %s %s: it expired on %s", f.Type, f.URL, f.Expires.UTC().Format(time.RFC3339))
			continue
		}
		k := groupKey{typ: f.Type, period: f.Period, gen: f.Generated.UnixNano()}
		if f.Since != nil {
			k.since = f.Since.UnixNano()
		}
		if g, ok := groups[k]; ok {
			g.urls = append(g.urls, f.URL)
			continue
		}
		groups[k] = &scpItem{File: f, urls: []string{f.URL}}
		order = append(order, k)
	}
	for _, k := range order {
		g := groups[k]
		g.URL = h.preferred(g.urls)
		if g.Type == scpbridge.TypeSnapshot {
			snaps = append(snaps, *g)
			continue
		}
		if slices.ContainsFunc(g.keys(), func(k string) bool { return h.processed[k] }) {
			h.advance(g.Generated)
			continue
		}
		if slices.ContainsFunc(g.urls, func(u string) bool { return h.processed[u] }) {
			// Recorded by URL alone, before deltas were told apart by
			// their generated time: read again, since it may have been
			// republished, but it was read up to its own time.
			h.advance(g.Generated)
		}
		deltas = append(deltas, *g)
	}
	byTime := func(a, b scpItem) int {
		if c := a.Generated.Compare(b.Generated); c != 0 {
			return c
		}
		return strings.Compare(a.URL, b.URL)
	}
	slices.SortStableFunc(snaps, byTime)
	slices.SortStableFunc(deltas, byTime)
	return snaps, deltas
}

// preferred picks among a file's URLs by the sitemap's compression order
// (zstd first when it gives none).
func (h *scpHarvest) preferred(urls []string) string {
	order := h.sm.Compression
	if len(order) == 0 {
		order = []string{"zstd", "gzip"}
	}
	rank := func(u string) int {
		kind := ""
		switch {
		case strings.HasSuffix(u, ".zst"):
			kind = "zstd"
		case strings.HasSuffix(u, ".gz"):
			kind = "gzip"
		}
		if i := slices.Index(order, kind); i >= 0 {
			return i
		}
		return len(order)
	}
	best := urls[0]
	for _, u := range urls[1:] {
		if rank(u) < rank(best) {
			best = u
		}
	}
	return best
}

// finish says what is to be stored.
func (h *scpHarvest) finish() harvest.Result {
	var res harvest.Result
	res.Pages, res.Gone = h.known.ToStore()
	res.Processed = h.done
	if h.stChanged {
		b, _ := json.Marshal(h.st)
		s := string(b)
		res.State = &s
	}
	return res
}
