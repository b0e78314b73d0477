package publish

import "tidings/rsync"

// notePrefix is the prefix rsync.NSNote is bound to, on a change list's
// root. IFCC-0001 says nothing of extensions; ResourceSync, like the
// sitemap protocol it builds on, lets a document carry attributes of
// other namespaces, which readers that do not know them skip.
const notePrefix = "tidings"

// noteFor is the note of a change the run found: the page's own
// change-note when it is new (one left in the page from an earlier
// change says nothing of this one), else the run's --note, else the
// subject of the commit that made the change.
func noteFor(e entry, was, now pageText, runNote string) string {
	if e.kind != rsync.ChangeDeleted && now.Note != "" && now.Note != was.Note {
		return now.Note
	}
	if runNote != "" {
		return runNote
	}
	return e.note
}
