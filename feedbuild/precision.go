package feedbuild

import (
	"fmt"

	"tidings/db"
)

// Precision says in a few words how tidings follows a collection, so that
// people can tell how precise its feed is: a site's own change
// information, or pages tidings watches because the site publishes none.
func Precision(col db.Collection) string {
	switch col.Protocol {
	case db.ProtocolPages:
		if col.Watched == 1 {
			return "watches 1 page"
		}
		return fmt.Sprintf("watches %d pages", col.Watched)
	case db.ProtocolResourceSync:
		return "follows its ResourceSync change list"
	case db.ProtocolSCP:
		return "follows its SCP collection"
	case db.ProtocolARC:
		return "follows its ARC sitemap"
	}
	return "follows its " + col.Protocol
}

// subtitle is a collection feed's subtitle.
func subtitle(col db.Collection) string {
	if col.Protocol == db.ProtocolPages {
		return fmt.Sprintf("Changes to %s as tidings sees them: the site publishes no change information, so tidings %s (protocol: pages)", col.Key, Precision(col))
	}
	return "Changes to " + col.Key + ", as the site's change information tells them"
}
