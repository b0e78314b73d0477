package feedbuild

import (
	"encoding/json"

	"tidings/db"
	"tidings/feeds"
	"tidings/pagetext"
)

// TextDiff reads the text diff stored with a change. ok is false when the
// text is not known to have changed: no snapshot, no diff, or a diff this
// version cannot read, which then shows as an entry or a page without one
// rather than failing the whole feed or page.
func TextDiff(ch db.Change) (d pagetext.Diff, ok bool) {
	if ch.TextChange != db.TextChanged || ch.Diff == "" {
		return d, false
	}
	if err := json.Unmarshal([]byte(ch.Diff), &d); err != nil || d.Unchanged() {
		return pagetext.Diff{}, false
	}
	return d, true
}

// textLine is how a digest sums up what a change did to its page's text,
// "" when unknown.
func textLine(ch db.Change) string {
	if ch.TextChange == db.TextUnchanged {
		return pagetext.NoTextChange
	}
	if d, ok := TextDiff(ch); ok {
		return d.Summary()
	}
	return ""
}

// textHTML is what a per-page entry shows of a change's text, "" when
// unknown: in words as well as markup, since readers drop one or the other.
func textHTML(ch db.Change) string {
	if ch.TextChange == db.TextUnchanged {
		return feeds.NoTextChangeHTML
	}
	if d, ok := TextDiff(ch); ok {
		return d.FeedHTML()
	}
	return ""
}

// TextHTML is what a change did to its page's text, as a per-page entry
// shows it: in words as well as markup; "" when unknown. Notifications
// say it the same way.
func TextHTML(ch db.Change) string { return textHTML(ch) }
