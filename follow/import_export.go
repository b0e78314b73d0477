package follow

import (
	"context"
	"slices"
	"strings"
	"time"

	"tidings/db"
	"tidings/imports"
)

// Export gathers everything a person set, as the file the import reads
// back: each site they follow with the name they gave it and their own
// rules (not the rules for everyone, nor learned ones, which the
// harvests here keep), their digest's address and schedule, and their
// push targets without their secrets.
func Export(ctx context.Context, store *db.DB, u db.User, now time.Time) (imports.Export, error) {
	e := imports.Export{Tidings: imports.ExportVersion, ExportedAt: now.UTC().Truncate(time.Second), User: u.Name, Follows: []imports.ExportFollow{}}
	sites, err := store.FollowedSites(ctx, u.ID)
	if err != nil {
		return e, err
	}
	titles, err := store.FollowTitles(ctx, u.ID)
	if err != nil {
		return e, err
	}
	urls := map[int64]string{}
	for _, site := range sites {
		urls[site.ID] = site.URL
		f := imports.ExportFollow{URL: site.URL, Title: titles[site.ID]}
		rules, err := store.RulesFor(ctx, site.ID, u.ID)
		if err != nil {
			return e, err
		}
		for _, r := range rules {
			if r.UserID == u.ID && r.Kind != db.IgnoreLearned {
				f.Rules = append(f.Rules, imports.Rule{Kind: r.Kind, Pattern: r.Pattern})
			}
		}
		e.Follows = append(e.Follows, f)
	}
	// By address, not by when each site came to this tidings: the export
	// of an instance the file was imported into reads the same.
	slices.SortFunc(e.Follows, func(a, b imports.ExportFollow) int { return strings.Compare(a.URL, b.URL) })
	n, err := store.NotifySettingsOf(ctx, u.ID)
	if err != nil {
		return e, err
	}
	e.Settings = imports.Settings{Email: n.Email, Digest: n.Every, WebhookSecret: n.PushSecret != ""}
	targets, err := store.PushTargets(ctx, u.ID)
	if err != nil {
		return e, err
	}
	for _, t := range targets {
		site := urls[t.SiteID]
		if site == "" && t.SiteID != 0 {
			// A site no longer followed: its name, so that the push is
			// not read as one for everything.
			site = t.SiteTitle
		}
		e.Settings.Pushes = append(e.Settings.Pushes, imports.ExportPush{Service: imports.Redact(t.URL), Site: site})
	}
	return e, nil
}
