package db

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestClosedDatabaseFailsLoudly: when the database cannot answer, every
// call says so, and no failure passes for "not found" or for an empty
// answer.
func TestClosedDatabaseFailsLoudly(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann := testUser(t, d, "ann")
	col := testCollection(t, d, "shrine")
	storeRun(t, d, col, time.Now(), "", Change{URL: "https://shrine.example/a", Kind: "updated", Datetime: time.Now()})
	x, err := d.CreateDiscovery(ctx, ann.ID, 0, "shrine.example")
	if err != nil {
		t.Fatal(err)
	}
	g := d.Generation(ctx)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	now := time.Now()
	id, site := col.ID, col.SiteID
	scope := Scope{CollectionID: id}
	calls := map[string]func() error{
		"Backup":             func() error { return d.Backup(ctx, filepath.Join(t.TempDir(), "copy.db")) },
		"Counts":             func() error { _, err := d.Counts(ctx); return err },
		"Ping":               func() error { return d.Ping(ctx) },
		"SyncCollections":    func() error { _, err := d.SyncCollections(ctx, site, nil); return err },
		"Collections":        func() error { _, err := d.Collections(ctx, CollectionFilter{}); return err },
		"CollectionByID":     func() error { _, err := d.CollectionByID(ctx, id); return err },
		"Digests":            func() error { _, err := d.Digests(ctx, scope, 10); return err },
		"FeedChanges":        func() error { _, err := d.FeedChanges(ctx, scope, 10); return err },
		"Stamp":              func() error { _, err := d.Stamp(ctx, scope); return err },
		"FollowerFeedTokens": func() error { _, err := d.FollowerFeedTokens(ctx, site); return err },
		"ExportChanges": func() error {
			return d.ExportChanges(ctx, ExportFilter{}, func(ExportedChange) error { return nil })
		},
		"Runs":               func() error { _, err := d.Runs(ctx, site, 10); return err },
		"Harvests":           func() error { _, err := d.Harvests(ctx, site, 10); return err },
		"PublicURL":          func() error { _, _, err := d.PublicURL(ctx); return err },
		"SetPublicURL":       func() error { return d.SetPublicURL(ctx, "https://example.org/", now) },
		"Follow":             func() error { return d.Follow(ctx, ann.ID, site) },
		"Unfollow":           func() error { return d.Unfollow(ctx, ann.ID, site) },
		"Follows":            func() error { _, err := d.Follows(ctx, ann.ID, site); return err },
		"FollowedSites":      func() error { _, err := d.FollowedSites(ctx, ann.ID); return err },
		"Followers":          func() error { _, err := d.Followers(ctx); return err },
		"CreateDiscovery":    func() error { _, err := d.CreateDiscovery(ctx, ann.ID, 0, "x"); return err },
		"FinishDiscovery":    func() error { return d.FinishDiscovery(ctx, x.ID, DiscoveryFollowed, site, "") },
		"DiscoveryByID":      func() error { _, err := d.DiscoveryByID(ctx, x.ID); return err },
		"Discoveries":        func() error { _, err := d.Discoveries(ctx, ann.ID, 0, 10); return err },
		"PendingDiscoveries": func() error { _, err := d.PendingDiscoveries(ctx); return err },
		"PendingCount":       func() error { _, err := d.PendingCount(ctx, ann.ID); return err },
		"CreateImport":       func() error { _, err := d.CreateImport(ctx, ann.ID, []string{"x"}, nil); return err },
		"ImportByID":         func() error { _, err := d.ImportByID(ctx, 1); return err },
		"SaveCollectionHarvest": func() error {
			_, err := d.SaveCollectionHarvest(ctx, CollectionHarvest{Run: Run{SiteID: site, CollectionID: id, StartedAt: now, FinishedAt: now}})
			return err
		},
		"SaveSiteHarvest": func() error {
			_, err := d.SaveSiteHarvest(ctx, Run{SiteID: site, StartedAt: now, FinishedAt: now}, nil)
			return err
		},
		"FetchStates":       func() error { _, err := d.FetchStates(ctx, site); return err },
		"FinishSiteHarvest": func() error { _, _, err := d.FinishSiteHarvest(ctx, site, now, false, now); return err },
		"SetNextHarvest":    func() error { return d.SetNextHarvest(ctx, site, now) },
		"Schedule":          func() error { _, err := d.Schedule(ctx, now, now); return err },
		"Outages":           func() error { _, err := d.Outages(ctx, scope, -1); return err },
		"Pages":             func() error { _, err := d.Pages(ctx, id); return err },
		"Processed":         func() error { _, err := d.Processed(ctx, id); return err },
		"CreateSite":        func() error { _, err := d.CreateSite(ctx, Site{URL: "https://new.example/"}); return err },
		"SiteByID":          func() error { _, err := d.SiteByID(ctx, site); return err },
		"SiteByURL":         func() error { _, err := d.SiteByURL(ctx, col.SiteURL); return err },
		"Sites":             func() error { _, err := d.Sites(ctx); return err },
		"DueSites":          func() error { _, err := d.DueSites(ctx, now); return err },
		"UpdateSiteSource":  func() error { return d.UpdateSiteSource(ctx, site, "s", "t") },
		"SetDiscovered":     func() error { return d.SetDiscovered(ctx, site, now) },
		"CreateUser":        func() error { _, err := d.CreateUser(ctx, "bob", "h", "tb", ""); return err },
		"CreateFirstUser":   func() error { _, err := d.CreateFirstUser(ctx, "bob", "h", "tb"); return err },
		"UserByID":          func() error { _, err := d.UserByID(ctx, ann.ID); return err },
		"UserByName":        func() error { _, err := d.UserByName(ctx, "ann"); return err },
		"UserByFeedToken":   func() error { _, err := d.UserByFeedToken(ctx, ann.FeedToken); return err },
		"Users":             func() error { _, err := d.Users(ctx); return err },
		"CountUsers":        func() error { _, err := d.CountUsers(ctx); return err },
		"DeleteUser":        func() error { return d.DeleteUser(ctx, "ann") },
		"SetFeedToken":      func() error { return d.SetFeedToken(ctx, ann.ID, "t") },
		"SetPassword":       func() error { return d.SetPassword(ctx, ann.ID, "h") },
		"CreateSession":     func() error { return d.CreateSession(ctx, "s", ann.ID, now) },
		"SessionUser":       func() error { _, err := d.SessionUser(ctx, "s", now); return err },
		"DeleteSession":     func() error { return d.DeleteSession(ctx, "s") },
		"CreateInvite":      func() error { return d.CreateInvite(ctx, "i", ann.ID, now) },
		"InviteValid":       func() error { _, err := d.InviteValid(ctx, "i", now); return err },
		"Invites":           func() error { _, err := d.Invites(ctx); return err },
		"WithdrawChanges": func() error {
			_, err := d.WithdrawChanges(ctx, id, []string{"https://shrine.example/a"})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyExists) || errors.Is(err, ErrInvalidInvite) {
				t.Errorf("on a closed database: %v, want the failure itself", err)
			}
		})
	}

	// Not knowing whether anything changed must not read as unchanged.
	time.Sleep(OtherWritersDelay + 10*time.Millisecond)
	if d.Generation(ctx) == g {
		t.Error("the generation stayed put when the database could not be asked")
	}
}

func TestOpenFails(t *testing.T) {
	ctx := context.Background()
	if d, err := Open(ctx, filepath.Join(t.TempDir(), "missing", "tidings.db")); err == nil {
		d.Close()
		t.Error("opened a database in a directory that does not exist")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if d, err := Open(cancelled, filepath.Join(t.TempDir(), "tidings.db")); err == nil {
		d.Close()
		t.Error("opened and migrated a new database under a cancelled context")
	}
}

// TestDamagedTimesFailLoudly: a stored time that is not in the one stored
// format is an error, never a zero time. PostgreSQL's timestamptz holds
// only instants: there, a time that is none cannot be stored at all.
func TestDamagedTimesFailLoudly(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if testPostgres {
		s, err := d.CreateSite(ctx, Site{URL: "https://damaged.example/"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.w.ExecContext(ctx, `UPDATE sites SET last_harvest_at = ? WHERE id = ?`, "yesterday noonish", s.ID); err == nil {
			t.Error("PostgreSQL stored a time that is none")
		}
		return
	}
	tests := []struct {
		name  string
		value any
	}{
		{"an integer", 1767225600},
		{"another layout", "2026-01-01 00:00:00"},
		{"a blob", []byte("yesterday")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := d.CreateSite(ctx, Site{URL: "https://" + tt.name + ".example/"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.w.ExecContext(ctx, `UPDATE sites SET last_harvest_at = ? WHERE id = ?`, tt.value, s.ID); err != nil {
				t.Fatal(err)
			}
			if got, err := d.SiteByID(ctx, s.ID); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("a site with a damaged time: %+v, %v; want an error", got, err)
			}
			if _, err := d.w.ExecContext(ctx, `UPDATE sites SET last_harvest_at = NULL, created_at = ? WHERE id = ?`, tt.value, s.ID); err != nil {
				t.Fatal(err)
			}
			if got, err := d.SiteByID(ctx, s.ID); err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("a site with a damaged creation time: %+v, %v; want an error", got, err)
			}
			if _, err := d.w.ExecContext(ctx, `DELETE FROM sites WHERE id = ?`, s.ID); err != nil {
				t.Fatal(err)
			}
		})
	}
}
