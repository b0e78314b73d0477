package sitecheck

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/internal/pgtest"
	"tidings/internal/sitemapsite"
)

// TestCheckCatchesLastmodsThatLie: a followed plain-sitemap site is
// deployed again with two pages whose text changed under the same
// lastmod, and two whose lastmod moved over the same text; the check,
// comparing with what tidings stored of the site, names all four, each
// under its finding, with what to do. The same check of a site not
// followed says the finding needs the site followed for a while.
func TestCheckCatchesLastmodsThatLie(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		store, ck := testChecker(t, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 20}})
		lastmodsThatLie(t, store, ck)
	})
	// What tidings stored is read back from PostgreSQL as well, when a
	// server is at hand.
	server, err := pgtest.Server()
	if err != nil || server == "" {
		t.Logf("no PostgreSQL round: %v %s", err, pgtest.How)
		return
	}
	t.Run("postgres", func(t *testing.T) {
		store, err := db.Open(t.Context(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		client := fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
		lastmodsThatLie(t, store, New(harvest.New(client, store, harvest.Options{Snapshots: harvest.SnapshotSettings{PageFetches: 20}})))
	})
}

func lastmodsThatLie(t *testing.T, store *db.DB, ck *Checker) {
	site := sitemapsite.New()
	t.Cleanup(site.Close)
	v1 := map[string]sitemapsite.Page{
		"/":       {Title: "Lantern Garden", Text: "Welcome to the garden.", Lastmod: "2026-11-01"},
		"/roses":  {Title: "Roses", Text: "Roses need sun.", Lastmod: "2026-11-02"},
		"/ferns":  {Title: "Ferns", Text: "Ferns like shade.", Lastmod: "2026-11-03"},
		"/tulips": {Title: "Tulips", Text: "Tulips come up in April.", Lastmod: "2026-11-04"},
		"/moss":   {Title: "Moss", Text: "Moss grows on the north side.", Lastmod: "2026-11-05"},
	}
	site.Version("", v1)

	// Not followed yet: one reading cannot tell.
	rep := runCheck(t, ck.WithHistory(store), site.URL("/"))
	if !slices.Contains(rep.Warnings, lastmodNeedsHistory) {
		t.Errorf("a site not followed: warnings %q, want %q", rep.Warnings, lastmodNeedsHistory)
	}

	if _, _, err := ck.h.FollowNew(context.Background(), site.URL("/"), site.URL("/")); err != nil {
		t.Fatal(err)
	}
	v2 := map[string]sitemapsite.Page{}
	for k, v := range v1 {
		v2[k] = v
	}
	v2["/roses"] = sitemapsite.Page{Title: "Roses", Text: "Roses need sun and water.", Lastmod: "2026-11-02"}
	v2["/ferns"] = sitemapsite.Page{Title: "Ferns", Text: "Ferns like deep shade.", Lastmod: "2026-11-03"}
	v2["/tulips"] = sitemapsite.Page{Title: "Tulips", Text: "Tulips come up in April.", Lastmod: "2026-11-20"}
	v2["/moss"] = sitemapsite.Page{Title: "Moss", Text: "Moss grows on the north side.", Lastmod: "2026-11-21"}
	site.Version("", v2)

	rep = runCheck(t, ck.WithHistory(store), site.URL("/"))
	byCode := problemsByCode(rep)
	for code, urls := range map[string][]string{
		CheckLastmodStale: {site.URL("/ferns"), site.URL("/roses")},
		CheckLastmodMoved: {site.URL("/moss"), site.URL("/tulips")},
	} {
		ps := byCode[code]
		if len(ps) != 1 {
			t.Errorf("%s: %+v, want one problem", code, ps)
			continue
		}
		p := ps[0]
		if !strings.HasPrefix(p.Problem, "2 pages ") || !strings.HasSuffix(p.Problem, ": "+strings.Join(urls, ", ")+".") ||
			!strings.Contains(p.Fix, "tidings publish") || p.Doc != site.URL("/sitemap.xml") || p.Blocking {
			t.Errorf("%s: %+v, want 2 pages named: %q", code, p, urls)
		}
	}
	if slices.Contains(rep.Warnings, lastmodNeedsHistory) {
		t.Error("a followed site is still said to need following")
	}
	// A stranger's check tells nothing of what is followed here: it reads
	// as the check of a site nobody follows.
	private, err := ck.WithHistory(store).Check(t.Context(), site.URL("/"), Options{TempDir: t.TempDir(), Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(problemsByCode(private)[CheckLastmodStale]) + len(problemsByCode(private)[CheckLastmodMoved]); n != 0 || !slices.Contains(private.Warnings, lastmodNeedsHistory) {
		t.Errorf("a private check: %d lastmod findings, warnings %q; want none, and the note that the site needs following", n, private.Warnings)
	}
}
