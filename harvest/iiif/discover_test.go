package iiif

import (
	"context"
	"testing"
	"time"
)

// TestDiscoverByContent: a stream is found given its own address, served
// as text/plain, or linked with the Activity Streams profile; a page of
// it stands for its collection; a JSON document that is no stream and an
// HTML page without a link give none.
func TestDiscoverByContent(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct {
		name, follow string
		serve        func(s *streamSite)
		want         bool
	}{
		{"address given, text/plain", "/changes", func(s *streamSite) { s.set("/changes", plainType, collectionDoc("/p0")) }, true},
		{"a page given", "/p0", func(s *streamSite) { s.set("/activity/all-changes", jsonType, collectionDoc("/p0")) }, true},
		{"linked with the Activity Streams profile", "/", func(s *streamSite) {
			s.set("/", htmlType, `<html><head><link rel="alternate" type='application/ld+json; profile="https://www.w3.org/ns/activitystreams"' href="/changes"></head></html>`)
			s.set("/changes", ldType, collectionDoc("/p0"))
		}, true},
		{"a Manifest given", "/m", func(s *streamSite) {
			s.set("/m", ldType, `{"id": "BASE/m", "type": "Manifest", "label": {"en": ["x"]}}`)
		}, false},
		{"a page without a link", "/", func(s *streamSite) { s.set("/", htmlType, `<html><head><title>Home</title></head></html>`) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, harvestOptions())
			e.site.set("/p0", jsonType, pageDoc("/p0", "", act("Create", "1", now.Add(-time.Hour), `"label": {"en": ["One"]}`)))
			tc.serve(e.site)
			// A site with nothing to follow fails its follow, saying what
			// was tried.
			rep, err := e.h.Follow(context.Background(), e.site.URL+tc.follow)
			found := false
			if err == nil {
				for _, c := range rep.Collections {
					if c.Collection.Protocol == Name {
						found = c.Collection.Key == e.site.URL+"/changes" || c.Collection.Key == e.site.URL+"/activity/all-changes"
					}
				}
			} else if tc.want {
				t.Fatal(err)
			}
			if found != tc.want {
				t.Errorf("stream found: %v, want %v", found, tc.want)
			}
		})
	}
}
