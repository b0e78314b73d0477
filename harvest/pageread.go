package harvest

import (
	"context"
	"errors"
	"slices"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/pagetext"
)

// ReadOptions say how a page is read for its text.
type ReadOptions struct {
	// WholeBody reads the text of the whole body rather than of its
	// readable article: watched pages compare all of it, and learn the
	// site's shared lines to leave out.
	WholeBody bool
	// Conditional asks with the validators of the previous snapshot, so
	// that an unchanged page answers 304.
	Conditional bool
	// Extract reads the text of every body, also the previous snapshot's
	// very bytes served again (a crawl follows the links of each page
	// read); otherwise those are taken as unchanged, unread.
	Extract bool
	// Given is the answer already in hand (discovery read the page):
	// it is not fetched again.
	Given *fetch.Response
	// Accept, when set, judges the answer before its text is read: false
	// leaves it unread (a crawl's page that turned out to be elsewhere).
	Accept func(resp *fetch.Response) bool
	// Types, when set, are the media types read: an answer of another is
	// refused at its headers, unread (a crawl reads only pages). Without
	// them any answer is read up to the snapshot limit, so that a
	// change's image is still known by its type, size and hash.
	Types []string
	// Timeout bounds the read, shorter than the harvester's --page-timeout
	// (a page that was slow before); 0 is that.
	Timeout time.Duration
	// Noise holds the parts of the site's pages a person asked to leave
	// out of their text (CollectionRun.ReadPage sets the site's).
	Noise *pagetext.Noise
	// Marks are each person's own selectors (siteRules.marks): a page
	// read again is also read without what each person's match, to tell
	// which of its lines they cover (PageRead.Covered).
	Marks map[int64][]pagetext.Selector
}

// PageRead is one page read for its text.
type PageRead struct {
	// Resp is the answer, its body included (a crawl reads its links).
	Resp *fetch.Response
	// NotModified: the page answered 304 to the previous snapshot's
	// validators. Resent: it sent the previous snapshot's very bytes
	// (a server without validators). SameBytes: Resent, and so not
	// extracted again (not asked to).
	NotModified, Resent, SameBytes bool
	// Skipped: Accept refused the answer; nothing was read of it.
	Skipped bool
	// TimedOut: the page took longer than the read's time limit.
	TimedOut bool
	// Text is the page's text, when a body was read.
	Text *pagetext.Snapshot
	// Snapshot is what to store as the page's latest, the next read's
	// baseline and validators; nil when nothing new was read.
	Snapshot *db.Snapshot
	// Covered are, for each person of ReadOptions.Marks, the lines of
	// Text their selectors match: those the text read without them
	// lacks.
	Covered map[int64]map[string]bool
}

// errNoTurn: the harvest ended while waiting for its turn to extract.
var errNoTurn = errors.New("harvest: the harvest ended before the page's text was read")

// readText is the one page reader: it fetches url (conditionally on the
// previous snapshot when asked), capped at the snapshot limit and, when
// asked, refused at its headers unless it is of the types read; and it
// reads its text in the turn of
// the site harvest of the given age (see extractions). Errors are the
// fetch's, pagetext's (ErrTooLarge and the like) or errNoTurn.
func (h *Harvester) readText(ctx context.Context, age uint64, now time.Time, url string, prev db.Snapshot, had bool, o ReadOptions) (PageRead, error) {
	opts := h.opts.Snapshots
	// A text read before the newest ignore rule still holds what it
	// leaves out: the page is read whole again, as a new baseline.
	rebase := had && o.Noise.Rebase(prev.FetchedAt)
	if rebase {
		o.Conditional = false
	}
	resp := o.Given
	if resp == nil {
		var err error
		var timedOut bool
		if resp, timedOut, err = h.getPage(ctx, url, prev, had, o); err != nil {
			return PageRead{TimedOut: timedOut}, err
		}
	}
	r := PageRead{Resp: resp, NotModified: resp.NotModified}
	if r.NotModified {
		return r, nil
	}
	if o.Accept != nil && !o.Accept(resp) {
		r.Skipped = true
		return r, nil
	}
	bodyHash := pageDigest(resp.Body)
	r.Resent = had && prev.ContentHash == bodyHash
	if !o.Extract && r.Resent && !rebase {
		// The very same bytes, from a server without validators: nothing
		// to extract.
		again := prev
		again.FinalURL, again.ETag, again.LastModified, again.FetchedAt = resp.URL, resp.ETag, lastModified(resp), now
		r.SameBytes, r.Snapshot = true, &again
		return r, nil
	}
	if !extractions.acquire(ctx, age) {
		return r, errNoTurn
	}
	defer extractions.release()
	ex := opts.extractor()
	ex.WholeBody = o.WholeBody
	ex.Remove, ex.KeepUnremoved = o.Noise.Selectors(), rebase
	// A page read before is read the same way again; a new one the way
	// its site's pages are, when the caller says (see PageRead).
	ex.Prefer = prev.Method
	snap, xerr := ex.Extract(resp.Body, resp.ContentType, resp.URL)
	if xerr != nil {
		return r, xerr
	}
	if err := ctx.Err(); err != nil && len(ex.Remove) > 0 {
		// The harvest ended during the selectors' walk, which then stops
		// short: the text may hold what they leave out.
		return r, err
	}
	r.Text = snap
	if had && snap.HasText() {
		r.Covered = covered(ctx, ex, snap, resp, o.Marks)
	}
	r.Snapshot = &db.Snapshot{
		URL: url, FinalURL: resp.URL, ContentType: pagetext.Clip(snap.MediaType, maxContentType),
		Title: snap.Title, Size: int64(snap.Size), ContentHash: bodyHash,
		Method: snap.Method, ETag: resp.ETag, LastModified: lastModified(resp), FetchedAt: now,
	}
	if snap.HasText() {
		r.Snapshot.Text = pagetext.Compress(snap.Text)
	}
	return r, nil
}

// covered reads a page's body once more for each person with selectors,
// without what they match, and returns the lines of snap's text each
// reading lacks. It is done only for a page read before whose body
// changed, the one kind whose change a person's rules may hide.
func covered(ctx context.Context, ex pagetext.Options, snap *pagetext.Snapshot, resp *fetch.Response, marks map[int64][]pagetext.Selector) map[int64]map[string]bool {
	var out map[int64]map[string]bool
	for u, sels := range marks {
		if ctx.Err() != nil {
			return nil
		}
		own := ex
		own.Remove, own.KeepUnremoved = append(slices.Clone(ex.Remove), sels...), false
		s, err := own.Extract(resp.Body, resp.ContentType, resp.URL)
		if err != nil || s.Text == snap.Text {
			continue
		}
		if out == nil {
			out = map[int64]map[string]bool{}
		}
		out[u] = pagetext.LeftOut(s.Text, snap.Text)
	}
	return out
}

// getPage fetches a page within its time limit; timedOut says the limit,
// not the harvest's end, stopped it.
func (h *Harvester) getPage(ctx context.Context, url string, prev db.Snapshot, had bool, o ReadOptions) (resp *fetch.Response, timedOut bool, err error) {
	limit := h.opts.Snapshots.PageTimeout
	if o.Timeout > 0 && o.Timeout < limit {
		limit = o.Timeout
	}
	pctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	g := fetch.GetOptions{MaxBody: int64(h.opts.Snapshots.MaxBody), Types: o.Types}
	if o.Conditional && had {
		g.Conditional = fetch.Conditional{ETag: prev.ETag, LastModified: prev.LastModified}
	}
	resp, err = h.client.GetWith(pctx, url, g)
	return resp, err != nil && pctx.Err() != nil && ctx.Err() == nil, err
}

// tooLarge reports whether a page read failed for its size: announced or
// found by the client (at the snapshot limit), or by the extractor.
func tooLarge(err error) bool {
	return errors.Is(err, fetch.ErrTooLarge) || errors.Is(err, pagetext.ErrTooLarge)
}

// ReadPage reads a page of the collection for its text with the one page
// reader every source shares (see readText): prev is the page's previous
// snapshot, if any.
func (j *CollectionRun) ReadPage(ctx context.Context, url string, prev *db.Snapshot, o ReadOptions) (PageRead, error) {
	var p db.Snapshot
	if prev != nil {
		p = *prev
	}
	if o.Noise == nil {
		o.Noise = j.reading.noise()
	}
	if o.Marks == nil {
		o.Marks = j.reading.rules.marks()
	}
	r, err := j.h.readText(ctx, j.reading.age, j.now, url, p, prev != nil, o)
	if err == nil {
		j.reading.rules.cover(url, r.Covered)
	}
	if err == nil && !j.first {
		// A first harvest spends a budget of its own (a crawl's).
		j.reading.refund(r)
	}
	return r, err
}
