package harvesttest

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/pagetext"
)

// Follow follows the site at u, failing the test on an error.
func Follow(t testing.TB, h *harvest.Harvester, u string) *harvest.SiteReport {
	t.Helper()
	rep, err := h.Follow(context.Background(), u)
	if err != nil {
		t.Fatalf("follow: %v", err)
	}
	return rep
}

// Harvest harvests the stored site whose root is root, failing the test
// on an error.
func Harvest(t testing.TB, store *db.DB, h *harvest.Harvester, root string) *harvest.SiteReport {
	t.Helper()
	site, err := store.SiteByURL(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := h.HarvestSite(context.Background(), site)
	if err != nil {
		t.Fatalf("harvest: %v", err)
	}
	return rep
}

// CollectionRun returns the report of the collection whose key ends in
// key, failing the test when the site's report has none.
func CollectionRun(t testing.TB, rep *harvest.SiteReport, key string) harvest.CollectionReport {
	t.Helper()
	for _, c := range rep.Collections {
		if strings.HasSuffix(c.Collection.Key, key) {
			return c
		}
	}
	t.Fatalf("no collection %s in report", key)
	return harvest.CollectionReport{}
}

// DiffOf decodes a change's stored diff into its removed and added lines.
func DiffOf(t testing.TB, c db.ExportedChange) (del, ins []string) {
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

// CheckText checks what a change says of its page's text: its title, the
// kind of text change, and the lines its diff removed and added.
func CheckText(t testing.TB, c db.ExportedChange, title, textChange string, del, ins []string) {
	t.Helper()
	gotDel, gotIns := DiffOf(t, c)
	if c.Title != title || c.TextChange != textChange || !reflect.DeepEqual(gotDel, del) || !reflect.DeepEqual(gotIns, ins) {
		t.Errorf("%s %s: title %q, text %q, removed %q, added %q; want %q, %q, %q, %q",
			c.Kind, c.URL, c.Title, c.TextChange, gotDel, gotIns, title, textChange, del, ins)
	}
}
