package harvest

import (
	"errors"
	"slices"

	"tidings/fetch"
)

// Problemf is an error whose message is a sentence for people.
func Problemf(format string, args ...any) error { return problemf(format, args...) }

// RoleError phrases a fetch's error for people, naming the document's
// role: "the page https://… returned 404 Not Found".
func RoleError(role string, err error) error { return roleError(role, err) }

// Snapshots are the harvester's settings of page snapshots.
func (j *CollectionRun) Snapshots() SnapshotSettings { return j.h.opts.Snapshots }

// Paused reports whether the site asked for a pause (429, 503): no page
// is to be asked for until the next harvest.
func (j *CollectionRun) Paused() bool { return j.reading.stop }

// TakePageFetch takes one page from the site harvest's budget of page
// fetches (--page-fetches), which every collection of the site shares;
// false when none is left or the site asked for a pause.
func (j *CollectionRun) TakePageFetch() bool {
	if j.reading.stop || j.reading.left <= 0 {
		return false
	}
	j.reading.left--
	return true
}

// SpendDocument takes one document from the site harvest's budget of
// documents (--max-documents) and counts it; once it is spent, page reads
// stop too, and the error says why.
func (j *CollectionRun) SpendDocument() error {
	if err := j.s.spend(); err != nil {
		j.reading.stop = true
		return err
	}
	j.s.documents++
	return nil
}

// CountNotModified counts a document that answered 304.
func (j *CollectionRun) CountNotModified() { j.s.notModified++ }

// NoteFailure takes what a failed fetch says of the site: a Retry-After
// postpones its next harvest, and pauses its page reads now.
func (j *CollectionRun) NoteFailure(err error) {
	j.s.noteRetryAfter(err)
	var fe *fetch.FetchError
	if errors.As(err, &fe) && fe.RetryAfter > 0 {
		j.reading.stop = true
	}
}

// ClearWarnings drops the warnings so far: the harvest's error says it
// all.
func (j *CollectionRun) ClearWarnings() { j.warn = warnings{} }

// ShareText tells the site harvest's other collections what a page's
// text did, so that their changes of the page carry it without reading it
// again.
func (j *CollectionRun) ShareText(url, title, textChange, diff string) {
	j.reading.taken[url] = &pageNote{title: title, textChange: textChange, diff: diff}
}

// HasTried reports whether discovery already said this, where it looked
// (another source may have tried the page already).
func (d *SiteDiscovery) HasTried(s string) bool { return slices.Contains(d.d.Tried, s) }

// TooLarge reports whether a page read failed for its size: announced or
// found by the client (at the snapshot limit), or by the extractor.
func TooLarge(err error) bool { return tooLarge(err) }

// EndedWaiting reports whether a page read ended because the harvest
// ended while it waited for its turn to read the text.
func EndedWaiting(err error) bool { return errors.Is(err, errNoTurn) }

// OverBudget reports whether err ended a fetch because the site
// harvest's budget of documents (--max-documents) is spent: a source that
// can go on where it stopped then waits for the next harvest, which is
// no failure.
func OverBudget(err error) bool { return errors.Is(err, errBudget) }
