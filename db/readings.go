package db

import (
	"context"
	"fmt"
	"time"
)

// PageReading is what tidings last stored of one page a sitemap lists:
// the lastmod the sitemap gave, and the digest of the page as last read
// (empty when it was not read).
type PageReading struct {
	Lastmod *time.Time
	Hash    []byte
}

// SitemapReadings returns, by URL, what the site at root's sitemap
// collections last listed and what was last read of each page; found is
// false when no such site is stored.
func (d *DB) SitemapReadings(ctx context.Context, root string) (map[string]PageReading, bool, error) {
	site, err := d.SiteByURL(ctx, root)
	if err == ErrNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	type row struct {
		url string
		r   PageReading
	}
	list, err := queryAll(ctx, d, fmt.Sprintf("load the sitemap readings of site %d", site.ID),
		`SELECT p.url, p.modified, s.content_hash FROM pages p
		JOIN collections c ON c.id = p.collection_id
		LEFT JOIN snapshots s ON s.site_id = c.site_id AND s.url = p.url
		WHERE c.site_id = ? AND c.protocol = 'sitemap'`, func(sc scanner) (row, error) {
			var r row
			var mod nullTime
			err := sc.Scan(&r.url, &mod, &r.r.Hash)
			r.r.Lastmod = mod.t
			return r, err
		}, site.ID)
	if err != nil {
		return nil, true, err
	}
	out := make(map[string]PageReading, len(list))
	for _, r := range list {
		out[r.url] = r.r
	}
	return out, true, nil
}
