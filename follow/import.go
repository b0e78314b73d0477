package follow

import (
	"context"
	"fmt"

	"tidings/db"
	"tidings/opml"
)

// MaxImportSites bounds the sites one import may start discovering.
const MaxImportSites = 500

// NothingToImportError: no outline of the file names a site that can be
// followed; Skipped says why of each.
type NothingToImportError struct{ Skipped []string }

// Error says that nothing was imported.
func (e *NothingToImportError) Error() string {
	return fmt.Sprintf("follow: no site to import; %d outline(s) skipped", len(e.Skipped))
}

// Import starts following, for a person, the site of each outline of an
// OPML file: one discovery per site, with the outline's title, which the
// follow keeps. skipped are the outlines the file's reader left out, and
// the import records them with its own. Only as many sites as the
// person's MaxPendingDiscoveries and sites quota leave room for are
// queued; the rest are recorded as skipped. The errors a person is told
// of are a *NothingToImportError, a *PendingError and a *QuotaError (no
// room at all).
func (s *Service) Import(ctx context.Context, userID int64, outlines []opml.Outline, skipped []string) (db.Import, error) {
	sites, ready, more := importSites(outlines)
	skipped = append(skipped, more...)
	if len(sites) == 0 {
		return db.Import{}, &NothingToImportError{Skipped: skipped}
	}
	return s.queueImport(ctx, userID, sites, ready, skipped)
}

// queueImport records an import of sites and queues their discoveries,
// as many as the person's pending-discovery and sites quotas leave room
// for; the rest are recorded as skipped, with why.
func (s *Service) queueImport(ctx context.Context, userID int64, sites []db.ImportSite, ready map[string]pending, skipped []string) (db.Import, error) {
	room, err := s.importRoom(ctx, userID)
	if err != nil {
		return db.Import{}, err
	}
	if len(sites) > room.n {
		for _, site := range sites[room.n:] {
			skipped = append(skipped, site.URL+": "+room.why)
		}
		sites = sites[:room.n]
	}
	im, err := s.store.CreateImportTitled(ctx, userID, sites, skipped)
	if err != nil {
		return db.Import{}, err
	}
	queued, err := s.store.Discoveries(ctx, userID, im.ID, MaxImportSites)
	if err != nil {
		return db.Import{}, err
	}
	for _, x := range queued {
		p, ok := ready[x.InputURL]
		if !ok {
			p = resumed(x)
		}
		p.d = x
		s.discover(p)
	}
	return im, nil
}

// importSites picks one address per site from the outlines: the page
// (htmlUrl) when given, else the feed (xmlUrl), whose site is the same;
// with the outline's title. ready holds each address normalised, by the
// address.
func importSites(outlines []opml.Outline) (sites []db.ImportSite, ready map[string]pending, skipped []string) {
	ready = map[string]pending{}
	seen := map[string]bool{}
	for _, o := range outlines {
		addr := o.HTMLURL
		if addr == "" {
			addr = o.XMLURL
		}
		a, err := ParseAddress(addr)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%q: %v", o.Title, err))
			continue
		}
		if seen[a.Root] {
			continue
		}
		if len(sites) >= MaxImportSites {
			skipped = append(skipped, fmt.Sprintf("%s: only %d sites are imported at once", addr, MaxImportSites))
			continue
		}
		seen[a.Root] = true
		// Kept as Add keeps it: normalised, and without its scheme when
		// the file gave none, so that a worker resuming the discovery
		// reaches it as this process would.
		sites = append(sites, db.ImportSite{URL: a.String(), Title: o.Title})
		ready[a.String()] = pending{addr: a}
	}
	return sites, ready, skipped
}

// importRoom is how many sites an import may queue now, and why not the
// others.
type importRoom struct {
	n   int
	why string
}

// importRoom says how many sites the person's MaxPendingDiscoveries and
// sites quota leave room for: a *PendingError or a *QuotaError when none.
func (s *Service) importRoom(ctx context.Context, userID int64) (importRoom, error) {
	waiting, err := s.store.PendingCount(ctx, userID)
	if err != nil {
		return importRoom{}, err
	}
	room := max(0, s.opts.MaxPendingDiscoveries-waiting)
	if room == 0 {
		return importRoom{}, &PendingError{Pending: waiting, Max: s.opts.MaxPendingDiscoveries}
	}
	r := importRoom{n: room, why: fmt.Sprintf("not queued: at most %d of your sites may wait to be looked at; import the file again once these are done", s.opts.MaxPendingDiscoveries)}
	quota, err := s.siteRoom(ctx, userID)
	if err != nil {
		return importRoom{}, err
	}
	if quota < r.n {
		r = importRoom{n: quota, why: fmt.Sprintf("not followed: one person may follow at most %d sites here; unfollow sites you no longer read to make room", s.opts.MaxSitesPerUser)}
	}
	return r, nil
}
