package resourcesync_test

import (
	"strings"
	"testing"
	"time"

	"tidings/harvest"
	"tidings/internal/harvesttest"
)

// TestUnchangedBodyWithoutValidatorsIsNotParsedAgain checks that a change
// list served again byte for byte, by a server that sends no validators,
// is recognised by its digest: the harvest does not read it again (its
// parse warning is not repeated), and a changed list is read as usual.
func TestUnchangedBodyWithoutValidatorsIsNotParsedAgain(t *testing.T) {
	site := harvesttest.NewPlainSite(t)
	site.Set("/.well-known/resourcesync", harvesttest.PlainHead+`<rs:md capability="description"/>
<url><loc>BASE/cap.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="BASE/"/></url>
</urlset>`)
	site.Set("/cap.xml", harvesttest.PlainHead+`<rs:ln rel="up" href="BASE/.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASE/changes.xml</loc><rs:md capability="changelist"/></url>
</urlset>`)
	at := func(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }
	list := harvesttest.PlainHead + `<rs:md capability="changelist"/>
<url><loc>BASE/a.html</loc><rs:md change="updated" datetime="` + at(2*time.Hour) + `"/></url>
<url><loc>BASE/undated.html</loc><rs:md change="updated"/></url>
`
	site.Set("/changes.xml", list+"</urlset>")
	store, h := harvesttest.New(t, harvesttest.Quiet(harvest.Options{}))

	first := harvesttest.Follow(t, h, site.URL+"/")
	if got := first.Changes(); got != 1 {
		t.Fatalf("first harvest: %d new changes, want 1", got)
	}
	if !hasWarning(first, "undated.html") {
		t.Fatalf("first harvest did not warn about the undated entry: %+v", first.Collections)
	}

	again := harvesttest.HarvestSite(t, store, h, site.URL+"/")
	if got := again.Changes(); got != 0 {
		t.Errorf("unchanged harvest: %d new changes, want 0", got)
	}
	if hasWarning(again, "undated.html") {
		t.Errorf("the unchanged change list was parsed again: %+v", again.Collections)
	}

	site.Set("/changes.xml", list+`<url><loc>BASE/b.html</loc><rs:md change="created" datetime="`+at(time.Minute)+`"/></url>
</urlset>`)
	changed := harvesttest.HarvestSite(t, store, h, site.URL+"/")
	if got := changed.Changes(); got != 1 {
		t.Errorf("after the list changed: %d new changes, want 1", got)
	}
	if !hasWarning(changed, "undated.html") {
		t.Errorf("the changed change list was not parsed: %+v", changed.Collections)
	}
}

func hasWarning(r *harvest.SiteReport, part string) bool {
	for _, c := range r.Collections {
		for _, w := range c.Run.Warnings {
			if strings.Contains(w, part) {
				return true
			}
		}
	}
	return false
}
