package web

import (
	"context"
	"fmt"
	"time"

	"tidings/db"
	"tidings/follow"
)

// adminUser is an account on the admin page, with what its follows hold
// against its quotas.
type adminUser struct {
	db.User
	Sites  int
	Stored string // its share of what its sites store
}

// storageView is the admin page's account of the disk: what each site
// stores, the most first, with who follows it.
type storageView struct {
	File   string // the database file
	Sites  string // what the sites' rows take, together
	Limits follow.Limits
	// PerUser says the bytes quota, "" without one.
	PerUser string
	Rows    []storageRow
}

type storageRow struct {
	Site      db.Site
	PageURL   string
	Bytes     string
	Share     string // of all the sites' bytes
	Followers []string
	// MeasuredAt is when the sweep measured it; nil when it has changed
	// since (it is measured within the hour).
	MeasuredAt *time.Time
	// Pruned says when the sweep last deleted its older changes to keep
	// it within its share; "" when it never did.
	Pruned string
}

// maxStorageRows bounds the sites the table lists: the biggest are what
// an admin looks for.
const maxStorageRows = 100

func (s *Server) adminUsers(ctx context.Context) ([]adminUser, error) {
	users, err := s.store.Users(ctx)
	if err != nil {
		return nil, err
	}
	usage, err := s.store.Usages(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]adminUser, len(users))
	for i, u := range users {
		out[i] = adminUser{User: u, Sites: usage[u.ID].Sites, Stored: sizeText(usage[u.ID].Bytes)}
	}
	return out, nil
}

func (s *Server) storage(ctx context.Context) (storageView, error) {
	var v storageView
	file, err := s.store.FileSize(ctx)
	if err != nil {
		return v, err
	}
	sites, err := s.store.SitesByStorage(ctx)
	if err != nil {
		return v, err
	}
	var total int64
	for _, st := range sites {
		total += st.Bytes
	}
	v.File, v.Sites = sizeText(file), sizeText(total)
	v.Limits = s.follow.Limits()
	if v.Limits.StoredBytes > 0 {
		v.PerUser = sizeText(v.Limits.StoredBytes)
	}
	cuts, err := s.store.ShareCuts(ctx)
	if err != nil {
		return v, err
	}
	for _, st := range sites[:min(len(sites), maxStorageRows)] {
		share := "—"
		if total > 0 {
			share = fmt.Sprintf("%.1f %%", 100*float64(st.Bytes)/float64(total))
		}
		row := storageRow{Site: st.Site, PageURL: s.abs(sitePath(st.Site)), Bytes: sizeText(st.Bytes),
			Share: share, Followers: st.Followers, MeasuredAt: st.MeasuredAt}
		if cut, ok := cuts[st.Site.ID]; ok {
			row.Pruned = fmt.Sprintf("Past its share of %s: on %s its changes up to %s were deleted, the oldest first. Raise --site-share to keep more of such sites.",
				sizeText(cut.Share), cut.At.UTC().Format("2 Jan 2006"), cut.Until.UTC().Format("2 Jan 2006"))
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// sizeText says a size in bytes as people read it: "0 B", "812 KB",
// "1.2 GB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
