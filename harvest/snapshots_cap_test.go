package harvest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"tidings/db"
	"tidings/pagetext"
)

// prose is n lines of random words from a small vocabulary, as pages
// rewritten whole every harvest serve.
func prose(r *rand.Rand, size int) string {
	words := strings.Fields("the a site page shrine gallery update new old cat moon river stone light wind paper letter art")
	var sb strings.Builder
	for sb.Len() < size {
		for k := range 12 {
			if k > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[r.IntN(len(words))])
		}
		fmt.Fprintf(&sb, " %d\n", r.IntN(1000))
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

func textSnap(text string) *pagetext.Snapshot {
	sum := sha256.Sum256([]byte(text))
	return &pagetext.Snapshot{Text: text, TextHash: hex.EncodeToString(sum[:])}
}

// A diff too big to be worth keeping keeps only its counts and the two
// texts' hashes; its entry says the page was replaced. Smaller ones, and
// big pages with small changes, keep their lines.
func TestStoredDiffIsCapped(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	big1, big2 := prose(r, 256<<10), prose(r, 256<<10)
	mid1, mid2 := prose(r, 14<<10), prose(r, 14<<10)
	small1, small2 := prose(r, 3<<10), prose(r, 3<<10)
	edited := strings.Replace(big1, "\n", "\nan inserted line\n", 1)
	for _, tc := range []struct {
		name     string
		old, new string
		replaced bool
		maxBytes int
	}{
		{"256 KB page rewritten whole", big1, big2, true, 300},
		{"14 KB page rewritten whole", mid1, mid2, true, 300},
		{"3 KB page rewritten whole", small1, small2, false, 8 << 10},
		{"256 KB page, one line added", big1, edited, false, 2 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := db.Snapshot{Text: pagetext.Compress(tc.old)}
			snap := textSnap(tc.new)
			change, stored := compareText("updated", prev, true, snap, 4*pagetext.DefaultMaxText, nil)
			if change != db.TextChanged {
				t.Fatalf("text change %q, want changed", change)
			}
			if len(stored) > tc.maxBytes {
				t.Errorf("stored diff is %d bytes, want at most %d", len(stored), tc.maxBytes)
			}
			var d pagetext.Diff
			if err := json.Unmarshal([]byte(stored), &d); err != nil {
				t.Fatal(err)
			}
			if got := d.Replaced != ""; got != tc.replaced {
				t.Fatalf("replaced = %v, want %v (%d bytes)", got, tc.replaced, len(stored))
			}
			if !tc.replaced {
				if got, err := d.Apply(tc.old); err != nil || got != tc.new {
					t.Errorf("the kept diff does not rebuild the new text: %v", err)
				}
				return
			}
			lines := strings.Count(tc.new, "\n") + 1
			if d.Replaced != snap.TextHash || d.ReplacedFrom != pagetext.TextHash(tc.old) || d.Added != lines || d.Removed != strings.Count(tc.old, "\n")+1 {
				t.Errorf("replacement = %+v, want the text hashes %s → %s and %d lines added", d, pagetext.TextHash(tc.old), snap.TextHash, lines)
			}
			want := fmt.Sprintf("<p>The page was replaced: %d lines added, %d removed, too many to show.</p>\n", d.Added, d.Removed)
			if got := d.HTML(); got != want {
				t.Errorf("HTML = %q, want %q", got, want)
			}
			if got, want := d.Summary(), fmt.Sprintf("Replaced whole: %d lines removed, %d added", d.Removed, d.Added); got != want {
				t.Errorf("Summary = %q, want %q", got, want)
			}
			if got := d.Unified("a", "b"); !strings.HasSuffix(got, "replaced by "+fmt.Sprint(d.Added)+", not kept\n") || strings.Contains(got, "@@") {
				t.Errorf("Unified = %q", got)
			}
			if _, err := d.Apply(tc.old); err != pagetext.ErrReplaced {
				t.Errorf("Apply = %v, want ErrReplaced", err)
			}
		})
	}
}
