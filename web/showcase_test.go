package web

import (
	"testing"
	"time"

	"tidings/db"
)

// showcaseSite stores a small site whose changes read well: page titles,
// a few text diffs, a deleted page. The browser test shows it in the
// README's screenshots.
func showcaseSite(t *testing.T, store *db.DB, at time.Time) db.Site {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://cats.example/", InputURL: "https://cats.example/", Title: "The Cat Shrine"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{
		{Protocol: "scp", Key: "https://cats.example/", SourceURL: "https://cats.example/site.scp.gz", Title: "Cats of the shrine"},
	})
	if err != nil {
		t.Fatal(err)
	}
	changes := []db.Change{
		{URL: "https://cats.example/whiskers.html", Kind: "updated", Datetime: at.Add(-40 * time.Minute), Title: "Whiskers",
			TextChange: db.TextChanged, Diff: diffJSON(t,
				"Whiskers\nWhiskers sleeps on the warm windowsill every afternoon.\nFavourite toy: the red mouse.",
				"Whiskers\nWhiskers purrs on the sunny windowsill every afternoon.\nFavourite toy: the red mouse.\nNew photo from the garden.")},
		{URL: "https://cats.example/adopt.html", Kind: "created", Datetime: at.Add(-3 * time.Hour), Title: "Adopt a cat",
			TextChange: db.TextChanged, Diff: diffJSON(t, "", "Adopt a cat\nThree kittens are looking for a home this month.")},
		{URL: "https://cats.example/links.html", Kind: "updated", Datetime: at.Add(-26 * time.Hour), Title: "Links", TextChange: db.TextUnchanged},
		{URL: "https://cats.example/guestbook.html", Kind: "deleted", Datetime: at.Add(-50 * time.Hour), Title: "Guestbook"},
	}
	// Stored as a harvest stores them: the site-level run, then its
	// collection's.
	finished := at.Add(-30 * time.Minute)
	if _, err := store.SaveSiteHarvest(ctx, db.Run{SiteID: site.ID, StartedAt: finished.Add(-time.Minute), FinishedAt: finished.Add(-20 * time.Second), Documents: 1}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
		Run:     db.Run{SiteID: site.ID, CollectionID: cols[0].ID, StartedAt: finished.Add(-20 * time.Second), FinishedAt: finished, Documents: 3, Changes: len(changes)},
		Changes: changes,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.FinishSiteHarvest(ctx, site.ID, finished, false, finished.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	return site
}
