package main

import (
	"context"
	"fmt"
	"time"

	"tidings/accounts"
	"tidings/db"
	"tidings/feedbuild"
	"tidings/harvest/resourcesync"
	_ "tidings/harvest/sources" // every source of change information tidings follows
)

// The shape of a seeded site: like the fleet's, with fewer changes, as a
// first harvest within the window leaves them.
const (
	seedCollections = 2
	seedChanges     = 20 // per collection
)

// seedSites fills a new database at path with n sites, each with its
// collections, one harvest's changes and its next harvest a day away (so
// serve's scheduler fetches nothing), all followed by one user. Writing
// through the db package, as a harvest does, takes seconds where
// following n synthetic sites would take minutes. It returns the path of
// every feed: each collection's, each site's, and the user's.
func seedSites(ctx context.Context, path string, n int) ([]string, error) {
	d, err := db.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	token := accounts.NewToken()
	u, err := d.CreateUser(ctx, "bench", "not a password hash: nobody signs in", token, "")
	if err != nil {
		return nil, err
	}
	paths := []string{"/" + feedbuild.UserFeedPath(token)}
	now := time.Now().UTC()
	for i := range n {
		site, cols, err := seedSite(ctx, d, i, now)
		if err != nil {
			return nil, err
		}
		if err := d.Follow(ctx, u.ID, site.ID); err != nil {
			return nil, err
		}
		paths = append(paths, "/"+feedbuild.SiteFeedPath(site))
		for _, c := range cols {
			paths = append(paths, "/"+feedbuild.CollectionFeedPath(c))
		}
	}
	return paths, nil
}

// seedSite stores site i as its first harvest at now leaves it.
func seedSite(ctx context.Context, d *db.DB, i int, now time.Time) (db.Site, []db.Collection, error) {
	root := fmt.Sprintf("https://site%05d.example/", i)
	site, err := d.CreateSite(ctx, db.Site{URL: root, InputURL: root, SourceURL: root + ".well-known/resourcesync", Title: fmt.Sprintf("Site %d", i)})
	if err != nil {
		return site, nil, err
	}
	specs := make([]db.CollectionSpec, seedCollections)
	for c := range specs {
		key := fmt.Sprintf("%sc%d/", root, c)
		specs[c] = db.CollectionSpec{Protocol: resourcesync.Name, Key: key, SourceURL: key + "capabilitylist.xml", Title: fmt.Sprintf("Site %d, part %d", i, c)}
	}
	cols, err := d.SyncCollections(ctx, site.ID, specs)
	if err != nil {
		return site, nil, err
	}
	for _, col := range cols {
		h := db.CollectionHarvest{Run: db.Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: now, FinishedAt: now, Documents: 3}}
		for k := range seedChanges {
			kind := "updated"
			if k%5 == 0 {
				kind = "created"
			}
			h.Changes = append(h.Changes, db.Change{
				URL:  fmt.Sprintf("%spages/%06d.html", col.Key, (i*7+k*13)%1000000),
				Kind: kind, Datetime: now.Add(-time.Duration(k+1) * time.Hour), Source: col.Key + "changelist.xml",
			})
		}
		h.Watermark = &now
		if _, err := d.SaveCollectionHarvest(ctx, h); err != nil {
			return site, nil, err
		}
	}
	if _, _, err := d.FinishSiteHarvest(ctx, site.ID, now, false, now.Add(24*time.Hour)); err != nil {
		return site, nil, err
	}
	return site, cols, nil
}
