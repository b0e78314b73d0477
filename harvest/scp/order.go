package scp

import (
	"context"
	"slices"
	"time"

	"tidings/scpbridge"
)

// Which of a section's files a harvest reads, and in what order: the
// snapshot when due, then the deltas, each checked to follow on from what
// was read before.

// keys name the file as processed: by URL and generated time, since a
// delta republished at the same URL with a newer generated time is
// another delta.
func (it *scpItem) keys() []string {
	out := make([]string, len(it.urls))
	for i, u := range it.urls {
		out[i] = scpDeltaKey(u, it.Generated)
	}
	return out
}

// scpDeltaKey is how a processed delta is stored.
func scpDeltaKey(u string, generated time.Time) string {
	return u + "#" + generated.UTC().Format(time.RFC3339Nano)
}

// read reads the snapshot when due, then the deltas not yet processed
// that no snapshot read covers, oldest first. A delta older than a newer
// snapshot is read when that snapshot was not: the snapshot may have been
// rejected, or not be due yet.
func (h *scpHarvest) read(ctx context.Context) error {
	snaps, deltas := h.offered()
	if len(snaps) > 0 {
		snap := &snaps[len(snaps)-1]
		if h.snapshotDue(snap, deltas) {
			h.readSnapshot(ctx, snap)
		}
	}
	for _, d := range deltas {
		if err := ctx.Err(); err != nil {
			return err
		}
		if g := h.st.SnapshotGenerated; g != nil && !d.Generated.After(*g) {
			// A snapshot read, now or before, holds all of it.
			h.done = append(h.done, d.keys()...)
			continue
		}
		if h.waiting {
			continue
		}
		h.checkChain(d)
		h.readDelta(ctx, d)
	}
	return nil
}

// checkChain names the gap a delta leaves when its since is after the end
// of what was read (a delta before it was rejected, expired unread, or
// never published), and remembers where the gap began so that the next
// newer snapshot is read to fill it.
func (h *scpHarvest) checkChain(d scpItem) {
	if d.Since == nil || h.st.Through == nil || !d.Since.After(*h.st.Through) {
		return
	}
	h.r.Warn("the delta %s covers changes since %s, but the files read before end at %s: changes in between may be missing until a newer snapshot is read",
		d.URL, d.Since.UTC().Format(time.RFC3339), h.st.Through.UTC().Format(time.RFC3339))
	if h.st.Gap == nil {
		gap := *h.st.Through
		h.st.Gap = &gap
	}
	h.stChanged = true
}

// snapshotDue: on the first harvest; later, when a newer snapshot is
// offered and the interval has passed since the last one was read, or at
// once when the section offers no deltas (its snapshots are then all there
// is to follow) or when it is newer than a gap in the deltas.
func (h *scpHarvest) snapshotDue(snap *scpItem, deltas []scpItem) bool {
	if h.st.SnapshotRead == nil {
		return true
	}
	if h.st.SnapshotGenerated != nil && !snap.Generated.After(*h.st.SnapshotGenerated) {
		return false
	}
	gap := h.st.Gap
	if gap == nil {
		gap = h.gapAhead(deltas)
	}
	if gap != nil && snap.Generated.After(*gap) {
		h.filling = gap
		return true
	}
	haveDeltas := slices.ContainsFunc(h.sm.Files, func(f scpbridge.File) bool {
		return f.Section == h.section && f.Type == scpbridge.TypeDelta
	})
	return !haveDeltas || h.r.Now().Sub(*h.st.SnapshotRead) >= h.r.Settings().(*Settings).withDefaults().SnapshotInterval
}

// gapAhead returns where the deltas to read stop following on from what
// was read, each from the one before (their since not after the newest
// generated so far), or nil when they all do.
func (h *scpHarvest) gapAhead(deltas []scpItem) *time.Time {
	through := h.st.Through
	for _, d := range deltas {
		if g := h.st.SnapshotGenerated; g != nil && !d.Generated.After(*g) {
			continue
		}
		if through != nil && d.Since != nil && d.Since.After(*through) {
			return through
		}
		if through == nil || d.Generated.After(*through) {
			gen := d.Generated
			through = &gen
		}
	}
	return nil
}

// advance moves the end of what was read to gen, when later.
func (h *scpHarvest) advance(gen time.Time) {
	if h.st.Through == nil || gen.After(*h.st.Through) {
		h.st.Through = &gen
		h.stChanged = true
	}
}
