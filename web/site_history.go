package web

import (
	"time"

	"tidings/db"
)

// harvestView is one harvest in a site's history: its site-level run and
// its collections' runs as one row, each problem named by the collection
// it arose in.
type harvestView struct {
	FinishedAt                                  time.Time
	Documents, NotModified, Changes, Backfilled int
	Problems                                    []harvestProblem
}

// harvestProblem is an error or a warning of a harvest; Of is the
// collection's title, "" for the site as a whole.
type harvestProblem struct {
	Of, Text string
	Error    bool
}

// newHarvestView sums a harvest's runs; names are the site's collection
// titles by id.
func newHarvestView(h db.Harvest, names map[int64]string) harvestView {
	var v harvestView
	for _, r := range h.Runs {
		if r.FinishedAt.After(v.FinishedAt) {
			v.FinishedAt = r.FinishedAt
		}
		v.Documents += r.Documents
		v.NotModified += r.NotModified
		v.Changes += r.Changes
		v.Backfilled += r.Backfilled
		of := ""
		if r.CollectionID != 0 {
			if of = names[r.CollectionID]; of == "" {
				// A collection no longer active: its runs stay.
				of = "a former collection"
			}
		}
		if r.Error != "" {
			v.Problems = append(v.Problems, harvestProblem{Of: of, Text: r.Error, Error: true})
		}
		for _, w := range r.Warnings {
			v.Problems = append(v.Problems, harvestProblem{Of: of, Text: w})
		}
	}
	return v
}
