// Package sources links every source of change information tidings
// follows: a program that harvests imports it once, and a new source is
// one more line here.
package sources

import (
	_ "tidings/harvest/arc"          // ARC sitemaps and their deltas
	_ "tidings/harvest/iiif"         // IIIF Change Discovery streams
	_ "tidings/harvest/pages"        // watched pages, where a site publishes nothing
	_ "tidings/harvest/resourcesync" // ResourceSync change lists and resource lists
	_ "tidings/harvest/scp"          // SCP sections: snapshots and deltas
	_ "tidings/harvest/sitemap"      // plain sitemaps
)
