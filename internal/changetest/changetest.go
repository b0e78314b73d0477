// Package changetest reads stored changes back for tests: the lines a
// change's diff removed and added, and whether a change says what a test
// expects of its page's text.
package changetest

import (
	"encoding/json"
	"reflect"
	"testing"

	"tidings/db"
	"tidings/pagetext"
)

// Diff decodes a stored diff into its removed and added lines.
func Diff(t testing.TB, c db.ExportedChange) (del, ins []string) {
	t.Helper()
	if c.Diff == "" {
		return nil, nil
	}
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(c.Diff), &d); err != nil {
		t.Fatalf("%s: diff %q: %v", c.URL, c.Diff, err)
	}
	for _, op := range d.Ops {
		del = append(del, op.Del...)
		ins = append(ins, op.Ins...)
	}
	return del, ins
}

// Text fails the test unless a change has the title, the text
// change and the removed and added lines given.
func Text(t testing.TB, c db.ExportedChange, title, textChange string, del, ins []string) {
	t.Helper()
	gotDel, gotIns := Diff(t, c)
	if c.Title != title || c.TextChange != textChange || !reflect.DeepEqual(gotDel, del) || !reflect.DeepEqual(gotIns, ins) {
		t.Errorf("%s %s: title %q, text %q, removed %q, added %q; want %q, %q, %q, %q",
			c.Kind, c.URL, c.Title, c.TextChange, gotDel, gotIns, title, textChange, del, ins)
	}
}
