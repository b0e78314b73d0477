package pages

import (
	"fmt"
	"strings"
	"testing"

	"tidings/harvest/pageset"
	"tidings/pagetext"
)

// TestSiteLines: the lines more than half of the pages share (a
// navigation at the top, a footer at the bottom) are the site's, even on
// pages of many thousand lines, and a page's own lines are not.
func TestSiteLines(t *testing.T) {
	h := &pagesHarvest{set: pageset.New(nil), vanished: map[string]bool{}}
	text := func(i, n int) string {
		lines := []string{"Home", "About", "Gallery"}
		for k := range n {
			lines = append(lines, fmt.Sprintf("Page %d, line %d.", i, k))
		}
		lines = append(lines, "Shared by two pages only", "© 2026 Ann")
		return strings.Join(lines, "\n")
	}
	for i := range 5 {
		body := text(i, 10)
		if i == 2 {
			body = text(i, 50000)
		}
		if i > 1 {
			body = strings.Replace(body, "Shared by two pages only\n", "", 1)
		}
		h.reads = append(h.reads, pageRead{id: fmt.Sprint(i), snap: &pagetext.Snapshot{Text: body}})
	}
	sl, _ := h.siteLines(pagetext.DefaultMaxText)
	got := sl.Drop(text(0, 2))
	want := "Page 0, line 0.\nPage 0, line 1.\nShared by two pages only"
	if got != want {
		t.Errorf("without the site's lines:\n%q\nwant\n%q", got, want)
	}
	if sl.Len() != 4 {
		t.Errorf("%d site lines, want 4 (three navigation lines and the footer)", sl.Len())
	}
	h.reads = h.reads[:2]
	if sl, _ := h.siteLines(pagetext.DefaultMaxText); sl.Len() != 0 {
		t.Errorf("two pages gave %d site lines, want none", sl.Len())
	}
}
