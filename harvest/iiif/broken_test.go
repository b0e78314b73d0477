package iiif

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	iiifdoc "tidings/iiif"
	"tidings/internal/harvesttest"
)

// TestBrokenStreamsExplained: a stream that cannot be read fails its
// harvest with a sentence naming the document, keeps what was read, and
// Explain says what is wrong and how to fix it in the owner's words.
func TestBrokenStreamsExplained(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	good := func(s *streamSite) {
		s.set("/changes", ldType, collectionDoc("/p1"))
		s.set("/p0", jsonType, pageDoc("/p0", "", act("Create", "1", now.Add(-2*time.Hour), `"label": {"en": ["First"]}`)))
	}
	many := make([]string, iiifdoc.MaxActivities+1)
	for i := range many {
		many[i] = act("Update", "9", now.Add(-time.Hour))
	}
	for _, tc := range []struct {
		name  string
		serve func(s *streamSite)
		want  error
		what  string
		fix   string
		rows  int
	}{
		{"collection not JSON", func(s *streamSite) {
			s.set("/changes", ldType, collectionDoc("/p1"))
		}, iiifdoc.ErrNotJSON, "is not JSON", "Serve the stream's documents as JSON", 0},
		{"no last", func(s *streamSite) {
			s.set("/changes", jsonType, `{"id": "BASE/changes", "type": "OrderedCollection", "first": {"id": "BASE/p0"}}`)
		}, iiifdoc.ErrNoLast, "names no last page", `Give the OrderedCollection a "last"`, 0},
		{"page 404", func(s *streamSite) {
			s.set("/changes", ldType, collectionDoc("/p1"))
		}, ErrPageMissing, "answers 404 Not Found", "Serve every page", 0},
		{"older page 404", func(s *streamSite) {
			s.set("/changes", ldType, collectionDoc("/p1"))
			s.set("/p1", jsonType, pageDoc("/p1", "/p0", act("Update", "2", now.Add(-time.Hour), `"label": {"en": ["Second"]}`)))
		}, ErrPageMissing, "/p0 of your IIIF change stream answers 404", "Serve every page", 1},
		{"page too large", func(s *streamSite) {
			s.set("/changes", ldType, collectionDoc("/p1"))
			s.set("/p1", jsonType, pageDoc("/p1", "", many...))
		}, iiifdoc.ErrTooLarge, "is too large to read", "Split the stream into more pages", 0},
		{"loop in prev", func(s *streamSite) {
			s.set("/changes", ldType, collectionDoc("/p1"))
			s.set("/p1", jsonType, pageDoc("/p1", "/p0", act("Update", "2", now.Add(-time.Hour), `"label": {"en": ["Second"]}`)))
			s.set("/p0", jsonType, pageDoc("/p0", "/p1", act("Create", "1", now.Add(-2*time.Hour), `"label": {"en": ["First"]}`)))
		}, ErrPageLoop, "leads back, through prev, to a page already read", "Make each page's prev name", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, harvestOptions())
			good(e.site)
			e.site.set("/p1", jsonType, pageDoc("/p1", "/p0"))
			e.follow("/changes")
			tc.serve(e.site)
			if tc.name == "collection not JSON" {
				e.site.set("/changes", htmlType, "<!doctype html><title>Log in</title><p>Please log in.")
			}
			if tc.name == "older page 404" {
				e.site.mu.Lock()
				delete(e.site.docs, "/p0")
				e.site.mu.Unlock()
			}
			if tc.name == "page 404" {
				e.site.mu.Lock()
				delete(e.site.docs, "/p1")
				e.site.mu.Unlock()
			}
			before, col := len(e.rows()), e.collection()
			rep := e.harvest()
			runErr := harvesttest.Collection(t, rep, "/changes").Run.Error
			if runErr == "" || !strings.Contains(runErr, e.site.URL) {
				t.Errorf("the run's error %q does not name the document", runErr)
			}
			if got := len(e.rows()) - before; got != tc.rows {
				t.Errorf("%d rows stored before the failure, want %d", got, tc.rows)
			}

			// Explain hears the harvest's own error: the collection read
			// again as it was.
			r := e.h.NewCollectionRun(col, time.Now())
			_, err := Source{}.Harvest(context.Background(), r)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Harvest error %v, want %v", err, tc.want)
			}
			what, fix, ok := Source{}.Explain(err)
			if !ok || !strings.Contains(what, tc.what) || !strings.HasPrefix(fix, tc.fix) {
				t.Errorf("Explain = %q, %q, %v; want what with %q and a fix starting %q", what, fix, ok, tc.what, tc.fix)
			}
		})
	}
	if _, _, ok := (Source{}).Explain(errors.New("some other error")); ok {
		t.Error("Explain claimed an error it does not know")
	}
}
