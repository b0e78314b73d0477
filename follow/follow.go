// Package follow is the one place a person's actions on sites are done:
// for now the command line's follow and harvest of many sites, and the
// sweep of the history of sites nobody follows. The CLI calls it and
// phrases its results; it normalises an address once and looks its site
// up once.
package follow

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/worker"
)

// SiteReport is what one harvest of a site did.
type SiteReport = harvest.SiteReport

// Harvester is what following needs of harvest.Harvester; tests hand in
// one that holds follows.
type Harvester interface {
	// FollowNew discovers and harvests a site not stored yet.
	FollowNew(ctx context.Context, root, input string) (*SiteReport, *harvest.Discovery, error)
	// Refollow discovers and harvests a stored site again.
	Refollow(ctx context.Context, site db.Site, input string) (*SiteReport, error)
	// HarvestSite harvests a stored site.
	HarvestSite(ctx context.Context, site db.Site) (*SiteReport, error)
	// CheckAddress says whether the address policy refuses a host.
	CheckAddress(ctx context.Context, rawURL string) error
}

// Options tune a Service.
type Options struct {
	Logger *slog.Logger
	// Now is the clock of the retention; time.Now when nil.
	Now func() time.Time
}

// Service does what people ask of sites.
type Service struct {
	store *db.DB
	h     Harvester
	opts  Options
}

// New builds a Service over store, following with h.
func New(store *db.DB, h Harvester, o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{store: store, h: h, opts: o}
}

// SiteRoot returns the root of the site rawURL belongs to, or why it is
// not an address tidings can follow.
func SiteRoot(rawURL string) (string, error) { return harvest.SiteRoot(rawURL) }

// Follow follows the site rawURL belongs to and harvests it now, for the
// command line: a site not stored yet is discovered; one stored is
// followed again from this address (and db.ErrAlreadyExists is returned
// alongside its report).
func (s *Service) Follow(ctx context.Context, rawURL string) (*SiteReport, error) {
	root, input, err := harvest.NormalizeAddress(rawURL)
	if err != nil {
		return nil, err
	}
	return s.follow(ctx, root, input)
}

// follow follows a normalised address, looking its site up once.
func (s *Service) follow(ctx context.Context, root, input string) (*SiteReport, error) {
	site, err := s.store.SiteByURL(ctx, root)
	if errors.Is(err, db.ErrNotFound) {
		rep, _, err := s.h.FollowNew(ctx, root, input)
		return rep, err
	}
	if err != nil {
		return nil, err
	}
	rep, err := s.h.Refollow(ctx, site, input)
	return rep, errors.Join(db.ErrAlreadyExists, err)
}

// FollowAll follows every address in urls as Follow does, as a batch:
// b.Workers at a time, never two of one host at once; an address of a
// site already followed (earlier in urls too) harvests it again. An
// address that is not one is reported to b.Done with its error and a nil
// report, before the others start.
func (s *Service) FollowAll(ctx context.Context, urls []string, b worker.Batch) error {
	var items []worker.Item
	for _, u := range urls {
		root, input, err := harvest.NormalizeAddress(u)
		if err != nil {
			if b.Done != nil {
				b.Done(u, nil, err)
			}
			continue
		}
		items = append(items, worker.Item{URL: u, Host: worker.HostOf(root), Do: func(ctx context.Context) (*SiteReport, error) {
			return s.follow(ctx, root, input)
		}})
	}
	return b.Run(ctx, items)
}

// HarvestSites harvests the given sites now, as a batch (tidings
// harvest).
func (s *Service) HarvestSites(ctx context.Context, sites []db.Site, b worker.Batch) error {
	return worker.HarvestSites(ctx, s.h, sites, b)
}

// SweepUnfollowed deletes the history of the sites nobody has followed
// for retention, as serve's scheduler does at each tick, and returns how
// many sites it emptied.
func (s *Service) SweepUnfollowed(ctx context.Context, retention time.Duration) (int, error) {
	return worker.SweepUnfollowed(ctx, s.store, s.opts.Now(), retention)
}
