package publish

import (
	"cmp"
	"slices"
	"time"
)

// closedList is a change list the run archives.
type closedList struct {
	n           int
	from, until time.Time
	entries     []entry
}

// lists is the change lists of a collection: the archived ones and the
// open one.
type lists struct {
	archives []listRef
	last     int          // the highest archive number taken
	closed   []closedList // archived by this run, also in archives
	from     time.Time    // the open list's
	current  []entry
}

func compareEntries(a, b entry) int {
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.url, b.url), cmp.Compare(a.kind, b.kind))
}

// monthStart is the first instant of t's month, in UTC.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// add puts the run's changes in the open list, first closing it when a
// month has ended since it began, and archiving it whenever it passes max
// entries. Entries are kept in order of time, so a closed list's until is
// never before one of its entries, nor the next list's from after one of
// its own.
func (ls *lists) add(adds []entry, now time.Time, max int) {
	if len(adds) == 0 {
		return
	}
	// An empty list is not worth an archive: it simply covers more.
	if month := monthStart(now); ls.from.Before(month) && len(ls.current) > 0 {
		until := month
		if last := ls.current[len(ls.current)-1].at; last.After(until) {
			until = last
		}
		ls.close(ls.current, until)
	}
	all := append(slices.Clone(ls.current), adds...)
	slices.SortStableFunc(all, compareEntries)
	// Dated by their commits, changes may precede the list's beginning,
	// which must still cover them.
	if all[0].at.Before(ls.from) {
		ls.from = all[0].at
	}
	for len(all) > max {
		chunk := all[:max:max]
		ls.close(chunk, chunk[len(chunk)-1].at)
		all = all[max:]
	}
	ls.current = all
}

// close archives entries as the next numbered list, from the open list's
// from to until, and begins the open list at until.
func (ls *lists) close(entries []entry, until time.Time) {
	for _, a := range ls.archives {
		ls.last = max(ls.last, a.n)
	}
	ls.last++
	n := ls.last
	c := closedList{n: n, from: ls.from, until: until, entries: entries}
	ls.closed = append(ls.closed, c)
	ls.archives = append(ls.archives, listRef{n: n, from: c.from, until: c.until})
	ls.from, ls.current = until, nil
}
