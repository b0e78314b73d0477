package feedbuild

import (
	"context"
	"fmt"
	"html"
	"strings"
	"time"

	"tidings/db"
	"tidings/feeds"
)

// keptItems are the entries that say where what each collection in scope
// keeps of its history ends: one a collection the retention sweep pruned,
// dated by the newest change it deleted, so that every entry kept comes
// before it and a paged feed's last page ends with it. Its id is the
// collection's; its date moves as later sweeps delete more.
func (b *Builder) keptItems(ctx context.Context, scope db.Scope, cols map[int64]db.Collection) ([]feedItem, error) {
	kept, err := b.store.KeptSince(ctx, scope)
	if err != nil {
		return nil, err
	}
	var out []feedItem
	for _, k := range kept {
		col, ok := cols[k.CollectionID]
		if !ok {
			continue
		}
		out = append(out, feedItem{
			key: Cursor{k.Until, srcKept, col.ID},
			entry: feeds.Entry{
				ID:          b.tag(col.CreatedAt, fmt.Sprintf("collection/%d/kept", col.ID)),
				Title:       "Older changes of " + keptName(col.Title) + " are not kept",
				Updated:     k.Until,
				Link:        b.URL(collectionPage(col)),
				ContentHTML: keptHTML(col.Title, k.Until),
			},
		})
	}
	return out, nil
}

// keptHTML is the content of that entry.
func keptHTML(collection string, until time.Time) string {
	until = until.UTC()
	return fmt.Sprintf(`<p>The changes of %s up to <time datetime="%s">%s</time> are no longer kept here: `+
		`this tidings keeps each feed's changes for a while, and its newest ones however old. Nothing older follows in this feed.</p>`,
		html.EscapeString(keptName(collection)), until.Format(time.RFC3339), until.Format("2 Jan 2006 15:04 UTC"))
}

func keptName(collection string) string {
	if name := strings.TrimSpace(feeds.CleanText(collection)); name != "" {
		return name
	}
	return "this collection"
}
