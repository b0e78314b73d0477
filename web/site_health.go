package web

import (
	"fmt"

	"tidings/db"
)

// siteHealth is how a site's harvests stand, in the terms /metrics counts
// site harvests by: ok, partial (some collections failing) or error.
type siteHealth struct {
	Outcome  string // "ok", "partial" or "error"
	Summary  string // one line for a person
	Problems []string
}

// healthOf judges a site by its own last error and those of its active
// collections: a site whose discovery works but whose every change list
// fails is not ok.
func healthOf(site db.Site, cols []collectionView) siteHealth {
	var h siteHealth
	failing := 0
	if site.LastError != "" {
		h.Problems = append(h.Problems, site.LastError)
	}
	for _, cv := range cols {
		if e := cv.Collection.LastError; e != "" {
			failing++
			h.Problems = append(h.Problems, cv.Collection.Title+": "+e)
		}
	}
	switch {
	case len(h.Problems) == 0:
		h.Outcome, h.Summary = "ok", "ok"
	case failing == len(cols):
		h.Outcome, h.Summary = "error", "failing"
		if len(cols) == 1 {
			h.Summary = "failing: its only collection fails"
		} else if len(cols) > 1 {
			h.Summary = fmt.Sprintf("failing: all %d collections fail", len(cols))
		}
	case failing == 0:
		h.Outcome, h.Summary = "partial", "partly failing: the site's own documents fail"
	default:
		h.Outcome = "partial"
		h.Summary = fmt.Sprintf("partly failing: %d of %s fail", failing, plural(len(cols), "collection", "collections"))
	}
	return h
}
