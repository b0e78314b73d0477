package scp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/harvest/pageset"
	"tidings/pagetext"
	"tidings/scpbridge"
)

// Stored lengths of a page's title and description: feed entries need no
// more, and a site must not fill the database through them.
const (
	maxSCPTitle   = 300
	maxSCPSummary = 1000
)

// scpStaged is what one file says, kept apart until the file has been read
// to its end and found valid: a rejected file stores nothing.
type scpStaged struct {
	item      *scpItem
	generated time.Time // the file's, clamping change times
	snapshot  bool
	initial   bool         // the first snapshot of the collection
	doc       *pageset.Doc // the file read against the section's pages
	changes   []db.Change
	reader    *scpbridge.Reader
}

func (h *scpHarvest) readSnapshot(ctx context.Context, snap *scpItem) {
	initial := h.st.SnapshotRead == nil && h.known.Fresh()
	st, ok := h.readFile(ctx, snap, initial)
	if !ok {
		return
	}
	h.commit(st)
	now := h.r.Now()
	gen := st.generated
	h.st.Snapshot, h.st.SnapshotGenerated, h.st.SnapshotRead = snap.URL, &gen, &now
	if h.filling != nil {
		h.r.Warn("the deltas offered leave out changes made after %s; the snapshot %s was read to fill the gap",
			h.filling.UTC().Format(time.RFC3339), snap.URL)
	}
	h.st.Gap = nil
	h.advance(snap.Generated)
	h.stChanged = true
}

func (h *scpHarvest) readDelta(ctx context.Context, d scpItem) {
	st, ok := h.readFile(ctx, &d, false)
	if !ok {
		return
	}
	h.commit(st)
	h.done = append(h.done, d.keys()...)
	h.advance(d.Generated)
}

// readFile downloads and decodes one file into a staging area. A fatal
// problem is recorded as the run's error and ok is false.
func (h *scpHarvest) readFile(ctx context.Context, it *scpItem, initial bool) (st *scpStaged, ok bool) {
	if h.waiting {
		return nil, false
	}
	cfg := h.r.Settings().(*Settings).withDefaults()
	role := it.Type
	if it.Size > cfg.MaxCompressed {
		h.reject(role, it.URL, fmt.Sprintf("it declares %s, more than the limit of %s (--scp-max-compressed)",
			fetch.SizeString(it.Size), fetch.SizeString(cfg.MaxCompressed)))
		return nil, false
	}
	stream, err := h.r.Stream(ctx, role, it.URL, fetch.StreamOptions{
		MaxBytes: cfg.MaxCompressed, Timeout: cfg.DownloadTimeout,
		Accept: "application/x-ndjson+zstd, application/x-ndjson+gzip;q=0.9, */*;q=0.1",
	})
	if err != nil {
		h.errs = append(h.errs, err.Error())
		var fe *fetch.FetchError
		if errors.As(err, &fe) && fe.RetryAfter > 0 {
			// The site asked for a pause: the files left are not asked
			// for now, and the next harvest comes after it.
			h.waiting = true
		}
		return nil, false
	}
	defer stream.Body.Close()
	r := scpbridge.NewReader(stream.Body, scpbridge.Options{
		SitemapURL: h.sitemap,
		Limits:     cfg.limits(),
	})
	defer r.Close()
	st = &scpStaged{item: it, generated: it.Generated, snapshot: it.Type == scpbridge.TypeSnapshot, initial: initial,
		reader: r}
	checked := false
	for {
		p, err := r.Next()
		if !checked && (err == nil || errors.Is(err, io.EOF)) {
			checked = true
			if msg := h.checkMeta(st, r.Meta()); msg != "" {
				h.reject(role, it.URL, msg)
				return nil, false
			}
			// A snapshot lists every page: what it leaves out was deleted.
			st.doc = h.known.Read(st.generated, pageset.Rules{Complete: st.snapshot})
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			harvest.NoteFinding(ctx, invalid(role, it.URL, err))
			h.reject(role, it.URL, err.Error())
			h.r.Logger().Info("scp file rejected", "url", it.URL, "error", err.Error(),
				"compressed", r.Stats().Compressed, "decompressed", r.Stats().Decompressed)
			return nil, false
		}
		h.stage(st, p)
	}
	if rule := r.Checksum(); rule != scpbridge.ChecksumNone {
		h.st.Checksum, h.stChanged = string(rule)+" "+it.URL, true
		h.r.Logger().Info("scp checksum verified", "url", it.URL, "rule", string(rule))
	}
	return st, true
}

func (h *scpHarvest) reject(role, u, msg string) {
	h.errs = append(h.errs, fmt.Sprintf("the %s %s was rejected: %s", role, u, msg))
}

// checkMeta compares the file's metadata line, when it has one, with the
// sitemap's element; without it the element's values stand.
func (h *scpHarvest) checkMeta(st *scpStaged, m *scpbridge.Meta) string {
	if m == nil {
		return ""
	}
	if m.Type != st.item.Type {
		return fmt.Sprintf("line 1: the file says it is a %s but the sitemap lists it as a %s", m.Type, st.item.Type)
	}
	if m.Section != h.section {
		h.r.Warn("%s says it belongs to the section %q, but the sitemap lists it under %q; taken as the sitemap says", st.item.URL, m.Section, h.section)
	}
	st.generated = m.Generated
	return ""
}

// stage compares a page with what is known (see pageDoc.add): unknown is
// created, a new modified time or content is updated, the same is
// skipped, and an older version than known (a late or overlapping delta)
// is skipped too.
func (h *scpHarvest) stage(st *scpStaged, p *scpbridge.Page) {
	mod := p.Modified
	c, ok := st.doc.Add(db.Page{URL: p.URL, Modified: &mod, Hash: p.Hash,
		Title: pagetext.Clip(p.Title, maxSCPTitle), Summary: pagetext.Clip(p.Description, maxSCPSummary)})
	if !ok {
		return
	}
	if c.Kind == "created" && st.initial && p.Published != nil && p.Published.Before(p.Modified) {
		// Seen for the first time, but the site says it was published
		// before its last modification: that was an update.
		c.Kind = "updated"
	}
	h.give(p)
	st.changes = append(st.changes, db.Change{
		URL: p.URL, Kind: c.Kind, Datetime: c.At, Source: st.item.URL,
		Title: c.Page.Title, Summary: c.Page.Summary, Author: pagetext.Clip(p.Author, maxSCPTitle), Language: p.Language,
	})
}

// commit applies a valid file's pages and changes to the run; a snapshot's
// deletions come last, titled as the pages were last known.
func (h *scpHarvest) commit(st *scpStaged) {
	deleted := st.doc.Commit()
	for _, c := range st.changes {
		h.r.Record(c)
	}
	r := st.reader
	for _, w := range r.Warnings() {
		h.r.Warn("%s %s", st.item.URL, w)
	}
	h.r.CountWarnings(r.WarningCount() - len(r.Warnings()))
	for _, c := range deleted {
		h.r.Record(db.Change{URL: c.Page.URL, Kind: c.Kind, Datetime: c.At, Source: st.item.URL,
			Title: c.Page.Title, Summary: c.Page.Summary})
	}
}
