package harvest

import (
	"context"

	"tidings/source"
)

// The sources in packages of their own import this one, so its tests
// cannot link them. probeSource stands for them where a test tells a
// full discovery from a recheck by what the site is asked: it looks at
// /sitemap.xml, as the SCP source does, finds nothing, and is no
// Rechecker.
type probeSource struct{}

func init() {
	Register(probeSource{}, source.Info{Tier: 0, Rank: 2, Help: "a probe of /sitemap.xml",
		Follows: func(int) string { return "is never followed" }})
}

func (probeSource) Name() string { return "probe" }

func (probeSource) Discover(ctx context.Context, d *SiteDiscovery) error {
	if _, err := d.Get(ctx, d.Root()+"sitemap.xml"); err != nil {
		d.Failed(err)
	}
	return nil
}

func (probeSource) Harvest(context.Context, *CollectionRun) (Result, error) {
	return Result{}, nil
}
