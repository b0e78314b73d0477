package harvest

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"time"

	"tidings/db"
)

// DefaultMaxChanges is the default of Options.MaxChanges. A change held
// until it is stored costs its URL and a few hundred bytes besides (the change,
// its key among those seen, the heap's slot): 100,000 changes of ordinary
// URLs hold about 40 MB, and a 50,000-entry change list, the largest a
// sitemap may be, is read in one harvest.
const DefaultMaxChanges = 100_000

// maxHeldBytes bounds what the changes one collection's harvest holds,
// whatever MaxChanges says: with URLs of hints.MaxURLBytes, about 28,000
// changes. A site serving long URLs then takes a few harvests more, and
// memory stays the same.
const maxHeldBytes = 64 << 20

// changeOverhead is what a held change costs besides its text.
const changeOverhead = 300

// heldSize is what holding c costs, roughly. Source is left out: the
// changes read from one document share its URL.
func heldSize(c *db.Change) int {
	n := changeOverhead + len(c.URL) + len(c.Kind) + len(c.Title) + len(c.Summary) + len(c.Author) + len(c.Language)
	for _, t := range c.Tags {
		n += len(t) + 16
	}
	return n
}

// Dates tidings believes. The web began in 1991: an earlier date is a
// mistake (often the zero time of some program). A date more than a day
// ahead of the harvest would sit on top of the feed for ever.
var minChangeTime = time.Date(1991, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxClockSkew is how far ahead of the harvest a date may be: the site
// check names a change list whose newest change is further.
const MaxClockSkew = 24 * time.Hour

// changeCap keeps the oldest changes of a harvest up to a limit, so that
// the watermark can move to the newest one kept and the next harvest goes
// on from there. Until the limit is passed the changes are simply
// appended, in the order read; past it they become a max-heap on
// (datetime, URL, kind), whose top is dropped while the limit is passed.
type changeCap struct {
	max      int // 0: no limit, for protocols that cannot go on from a watermark
	held     int // heldSize of the run's changes
	heaped   bool
	ceiling  changeKey // the least change dropped: it and anything later wait
	deferred bool      // something was dropped
}

// limitChanges makes the run keep at most Options.MaxChanges changes (and
// maxHeldBytes). Only an adapter whose next harvest reads again what is
// left, from the watermark on, may call it: a page-set protocol stores
// its pages' state with their changes, and a change dropped there would
// be lost.
func (j *CollectionRun) limitChanges() { j.limit.max = j.h.opts.MaxChanges }

func keyOf(c *db.Change) changeKey { return changeKey{c.URL, c.Kind, c.Datetime} }

func compareKeys(a, b changeKey) int {
	if c := a.at.Compare(b.at); c != 0 {
		return c
	}
	if c := cmp.Compare(a.url, b.url); c != 0 {
		return c
	}
	return cmp.Compare(a.kind, b.kind)
}

// waits reports whether c must wait for the next harvest: something not
// later than it was already dropped.
func (j *CollectionRun) waits(c *db.Change) bool {
	return j.limit.deferred && compareKeys(keyOf(c), j.limit.ceiling) >= 0
}

// hold adds c to the changes, dropping the latest ones while the limit is
// passed.
func (j *CollectionRun) hold(c db.Change) {
	l := &j.limit
	if l.heaped {
		heap.Push((*latestFirst)(&j.changes), c)
	} else {
		j.changes = append(j.changes, c)
	}
	if l.max == 0 {
		return
	}
	l.held += heldSize(&c)
	for len(j.changes) > l.max || l.held > maxHeldBytes {
		if !l.heaped {
			heap.Init((*latestFirst)(&j.changes))
			l.heaped = true
		}
		out := heap.Pop((*latestFirst)(&j.changes)).(db.Change)
		l.held -= heldSize(&out)
		k := keyOf(&out)
		delete(j.seen, k)
		if out.FromLastmod {
			j.lastmod--
		}
		// Each change dropped is later than every one kept, and earlier
		// than the one dropped before it.
		l.ceiling, l.deferred = k, true
	}
	if l.deferred {
		j.newest = j.changes[0].Datetime
	}
}

// isHistory reports whether a change dated at is stored as already seen:
// on a collection's first harvest, when it is older than the window. A
// collection whose changes are many reads its history over several
// harvests, oldest first; so with a limit, a change older than the window
// of the collection's first harvest stays history in the harvests that
// follow, instead of flooding the feed with years-old pages.
func (j *CollectionRun) isHistory(at time.Time) bool {
	if j.first || j.limit.max == 0 {
		return j.first && at.Before(j.cutoff)
	}
	return at.Before(j.col.CreatedAt.Add(-j.h.opts.InitialWindow))
}

// finishChanges puts the changes back in order of time when the heap
// disturbed the order they were read in, and says what waits.
func (j *CollectionRun) finishChanges() {
	l := &j.limit
	if l.heaped {
		slices.SortFunc(j.changes, func(a, b db.Change) int { return compareKeys(keyOf(&a), keyOf(&b)) })
	}
	if !l.deferred {
		return
	}
	j.s.forgetCut()
	if wm := j.col.LastProcessedAt; wm != nil && !j.newest.After(*wm) {
		// Every change kept is dated at the watermark, which cannot move:
		// the next harvest would take the same ones again.
		j.warn.add("more than %d changes of this collection share the date %s; tidings keeps at most %d per harvest (--max-changes), so the rest of them cannot be read",
			l.max, wm.Format(time.RFC3339), l.max)
		return
	}
	j.warn.add("this collection has more changes than one harvest takes (at most %d, --max-changes): the oldest were stored, and the later ones wait for the next harvest", l.max)
}

// latestFirst is a max-heap of changes by (datetime, URL, kind).
type latestFirst []db.Change

func (h latestFirst) Len() int { return len(h) }
func (h latestFirst) Less(i, k int) bool {
	return compareKeys(keyOf(&h[i]), keyOf(&h[k])) > 0
}
func (h latestFirst) Swap(i, k int) { h[i], h[k] = h[k], h[i] }
func (h *latestFirst) Push(x any)   { *h = append(*h, x.(db.Change)) }
func (h *latestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// refusedDates counts the changes refused for their date, so that one
// warning each says how many.
type refusedDates struct {
	early, late int
	latest      time.Time
}

// believable reports whether a change dated at may be recorded: not before
// 1991, not more than MaxClockSkew after the harvest began. A later one is
// refused rather than dated now: the next harvest would date it anew, and
// every harvest would add it to the feed again.
func (j *CollectionRun) believable(at time.Time) bool {
	d := &j.dates
	switch {
	case at.Before(minChangeTime):
		d.early++
	case at.After(j.now.Add(MaxClockSkew)):
		d.late++
		if at.After(d.latest) {
			d.latest = at
		}
	default:
		return true
	}
	return false
}

// finishDates warns about the changes refused for their date.
func (j *CollectionRun) finishDates() {
	d := &j.dates
	if d.early > 0 {
		j.warn.add("ignored %d %s dated before 1991, before the web began", d.early, changesWord(d.early))
	}
	if d.late > 0 {
		j.warn.addFinding(Finding{Code: CodeFutureDates, Document: j.col.SourceURL}, fmt.Sprintf(
			"ignored %d %s dated more than a day after this harvest (the latest on %s), which would stay on top of the feed",
			d.late, changesWord(d.late), d.latest.Format("2006-01-02")))
	}
}

func changesWord(n int) string {
	if n == 1 {
		return "change"
	}
	return "changes"
}
