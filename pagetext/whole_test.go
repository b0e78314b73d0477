package pagetext_test

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"tidings/pagetext"
)

// bigChange is a diff of n lines, each rewritten whole, of long text full
// of characters HTML escapes, between unchanged lines every tenth line.
func bigChange(n int) (pagetext.Diff, []string) {
	var a, b, added []string
	for i := range n {
		if i%10 == 9 {
			a, b = append(a, fmt.Sprintf("kept %d", i)), append(b, fmt.Sprintf("kept %d", i))
			continue
		}
		a = append(a, fmt.Sprintf("old line %d ", i)+strings.Repeat("x<y & ", 80))
		line := fmt.Sprintf("new line %d ", i) + strings.Repeat("<b>&amp; ", 60)
		b, added = append(b, line), append(added, line)
	}
	return pagetext.Compare(strings.Join(a, "\n"), strings.Join(b, "\n")), added
}

// TestFeedHTMLWithin: a feed entry shows what fits in its bytes, says how
// many lines it leaves out, and says when it showed everything.
func TestFeedHTMLWithin(t *testing.T) {
	d, _ := bigChange(100)
	const budget = 8 << 10
	out, whole := d.FeedHTMLWithin(budget)
	more := "<p>and "
	body, tail, ok := strings.Cut(out, more)
	if whole || !ok || len(body) > budget {
		t.Fatalf("a change of %d lines within %d bytes: whole %v, %d bytes before %q", d.Added+d.Removed, budget, whole, len(body), more)
	}
	shown := strings.Count(body, pagetext.RemovedLabel) + strings.Count(body, pagetext.AddedLabel)
	if shown == 0 || tail != fmt.Sprintf("%d more lines</p>\n", d.Added+d.Removed-shown) {
		t.Errorf("%d lines shown, then %q", shown, more+tail)
	}
	if !strings.HasPrefix(d.FeedHTML(), body) {
		t.Error("within its bytes, the entry does not show what FeedHTML shows first")
	}

	small := pagetext.Compare("Winter cranes\nSo far: 212.", "Winter cranes\nSo far: 340.")
	if out, whole := small.FeedHTMLWithin(budget); !whole || out != small.FeedHTML() {
		t.Errorf("a small change within %d bytes: whole %v, %q", budget, whole, out)
	}
	// Forty lines are all a feed shows, whatever room is left.
	if _, whole := d.FeedHTMLWithin(1 << 30); whole {
		t.Error("a change of 180 lines shown whole in a feed")
	}
	// A line too long for the bytes: the entry says the change in a line.
	long := pagetext.Compare(strings.Repeat("a <b> ", 100), strings.Repeat("c <d> ", 100))
	out, whole = long.FeedHTMLWithin(1 << 10)
	if whole || !strings.HasPrefix(out, "<p>Removed: a &lt;b&gt; a") || !strings.Contains(out, "…; Added: c &lt;d&gt; c") || !strings.HasSuffix(out, "…</p>\n") {
		t.Errorf("a line too long for 1 KiB: whole %v, %q", whole, out)
	}
	replaced := pagetext.Replacement(d, "a", "b")
	if out, whole := replaced.FeedHTMLWithin(budget); !whole || !strings.Contains(out, "was replaced: 90 lines added, 90 removed") {
		t.Errorf("a replacement: whole %v, %q", whole, out)
	}
}

// TestWholeHTML: the page of one change shows every line its diff keeps,
// and where unchanged lines sit between its changes.
func TestWholeHTML(t *testing.T) {
	d, added := bigChange(100)
	out := d.WholeHTML()
	for _, l := range added {
		if !strings.Contains(out, html.EscapeString(l)) {
			t.Fatalf("the whole diff leaves out %.40q…", l)
		}
	}
	if n := strings.Count(out, "… 1 unchanged line …"); n != 9 {
		t.Errorf("%d runs of unchanged lines said, want 9", n)
	}
	if strings.Contains(out, "more line") {
		t.Error("the whole diff says it leaves lines out")
	}
}
