package sitemap

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
	"tidings/internal/harvesttest"
	"tidings/internal/noisysite"
)

// noisyEnv harvests a noisysite a day apart.
type noisyEnv struct {
	t     *testing.T
	site  *noisysite.Site
	store *db.DB
	h     *harvest.Harvester
	now   time.Time
}

func newNoisyEnv(t *testing.T, widgets bool, pageFetches int) *noisyEnv {
	t.Helper()
	e := &noisyEnv{t: t, site: noisysite.New(noisysite.Options{Widgets: widgets}), now: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}
	t.Cleanup(e.site.Close)
	e.store, e.h = harvesttest.New(t, harvest.Options{Now: func() time.Time { return e.now },
		Snapshots: harvest.SnapshotSettings{PageFetches: pageFetches}})
	return e
}

func (e *noisyEnv) follow() {
	e.t.Helper()
	harvesttest.Follow(e.t, e.h, e.site.URL("/"))
}

func (e *noisyEnv) harvest() {
	e.t.Helper()
	e.now = e.now.Add(24 * time.Hour)
	harvesttest.HarvestSite(e.t, e.store, e.h, e.site.URL("/"))
}

// entries lists the changes that reach a feed as "kind path", sorted.
func (e *noisyEnv) entries() []string {
	e.t.Helper()
	var out []string
	for _, c := range e.exported() {
		if !c.History {
			out = append(out, c.Kind+" "+strings.TrimPrefix(c.URL, e.site.Srv.URL))
		}
	}
	slices.Sort(out)
	return out
}

func (e *noisyEnv) exported() []db.ExportedChange {
	e.t.Helper()
	var all []db.ExportedChange
	if err := e.store.ExportChanges(context.Background(), db.ExportFilter{}, func(c db.ExportedChange) error {
		all = append(all, c)
		return nil
	}); err != nil {
		e.t.Fatal(err)
	}
	return all
}

// diffs are the entries' diffs, one a line.
func (e *noisyEnv) diffs() string {
	var out []string
	for _, c := range e.exported() {
		if !c.History {
			out = append(out, c.Kind+" "+strings.TrimPrefix(c.URL, e.site.Srv.URL)+" "+c.Diff)
		}
	}
	return strings.Join(out, "\n")
}

func (e *noisyEnv) change(path, kind string) db.ExportedChange {
	e.t.Helper()
	c := harvesttest.FindChange(e.exported(), e.site.URL(path), kind)
	if c == nil {
		e.t.Fatalf("no %s %s exported; entries %q", kind, path, e.entries())
	}
	return *c
}

func (e *noisyEnv) learned() []string {
	e.t.Helper()
	rules, err := e.store.IgnoreRules(context.Background(), harvesttest.SiteID(e.t, e.store, e.site.URL("/")))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range rules {
		if r.Kind == db.IgnoreLearned {
			out = append(out, r.Pattern)
		}
	}
	slices.Sort(out)
	return out
}

// parsnip is the first version of the site: four posts and six pages of
// documentation.
func parsnip() noisysite.Version {
	return noisysite.Version{
		Release: "parsnip 1.4.0",
		Nav:     []string{"Guide", "Reference", "Tools & Techniques", "Blog"},
		Posts: []noisysite.Post{
			{Slug: "hello", Title: "Hello from parsnip", Paragraphs: []string{"Parsnip is a tool to dig data.", "It is young."}, Tags: []string{"news"}},
			{Slug: "beds", Title: "Raised beds support", Paragraphs: []string{"Parsnip now knows raised beds.", "Measure them in metres."}, Tags: []string{"features"}},
			{Slug: "frost", Title: "Frost warnings arrive", Paragraphs: []string{"Parsnip warns you of frost.", "It reads the forecast every hour."}, Tags: []string{"features", "weather"}},
			{Slug: "sprint", Title: "Our autumn sprint", Paragraphs: []string{"We spent a week on speed.", "Parsnip starts twice as fast."}, Tags: []string{"news"}},
		},
		Docs: []noisysite.Doc{
			{Path: "/guide/", Title: "The guide", Paragraphs: []string{"Start with one bed.", "Add plants as they grow."}},
			{Path: "/guide/install/", Title: "Installing parsnip", Paragraphs: []string{"Download the archive.", "Run the installer twice."}},
			{Path: "/guide/beds/", Title: "Describing beds", Paragraphs: []string{"Each bed has a name and a size."}},
			{Path: "/reference/", Title: "Reference", Paragraphs: []string{"Every command, one by one."}},
			{Path: "/reference/dig/", Title: "The dig command", Paragraphs: []string{"Dig reads a bed's soil.", "It takes a bed's name."}},
			{Path: "/reference/sow/", Title: "The sow command", Paragraphs: []string{"Sow plans the seeds of a bed."}},
		},
	}
}

// editDoc returns v with a paragraph added to one page of the docs.
func editDoc(v noisysite.Version, path, paragraph string) noisysite.Version {
	v.Docs = slices.Clone(v.Docs)
	for i, d := range v.Docs {
		if d.Path == path {
			v.Docs[i].Paragraphs = append(slices.Clone(d.Paragraphs), paragraph)
		}
	}
	return v
}

// TestWidgetsOnASitemapSite: a 13-page sitemap site without lastmod
// whose every read brings a new quote of the day, webring member and
// banner. A harvest with nothing else changed gives no entry, and the
// widgets are learned; the next version's one edit is one entry whose
// diff holds its sentence and no widget; a harvest after it, none.
func TestWidgetsOnASitemapSite(t *testing.T) {
	e := newNoisyEnv(t, true, harvest.DefaultPageFetches)
	e.site.Set(parsnip())
	e.follow()
	e.harvest()
	e.harvest()
	if got := e.entries(); len(got) != 0 {
		t.Errorf("the widgets made entries %q; /guide/'s diff %s", got, e.change("/guide/", "updated").Diff)
	}
	want := []string{"Quote of the day: …", "Webring: visit …", "between “Our banner” and “Thanks for reading”"}
	if got := e.learned(); !slices.Equal(got, want) {
		t.Errorf("learned %q, want %q", got, want)
	}
	e.site.Set(editDoc(parsnip(), "/reference/sow/", "Sow also plans the flowers."))
	e.harvest()
	e.harvest()
	if got := e.entries(); !slices.Equal(got, []string{"updated /reference/sow/"}) {
		t.Fatalf("entries %q, want the one edit", got)
	}
	c := e.change("/reference/sow/", "updated")
	changetest.Text(t, c, "The sow command", db.TextChanged, nil, []string{"Sow also plans the flowers."})
	for _, w := range slices.Concat(noisysite.Quotes, noisysite.Members, noisysite.Banners) {
		if strings.Contains(c.Diff, w) {
			t.Errorf("the diff shows the widget %q: %s", w, c.Diff)
		}
	}
}

// bigParsnip is parsnip with 40 more pages of reference.
func bigParsnip() noisysite.Version {
	v := parsnip()
	for i := range 40 {
		v.Docs = append(v.Docs, noisysite.Doc{Path: fmt.Sprintf("/reference/option-%d/", i), Title: fmt.Sprintf("Option %d", i),
			Paragraphs: []string{fmt.Sprintf("Option %d sets how deep parsnip digs, in steps of %d centimetres.", i, i+1)}})
	}
	return v
}

// TestChromeRemovedIsNoNews: on a 53-page documentation site read 10
// pages a harvest (--page-fetches), a release moves every navbar from
// "parsnip 1.4.0" to "parsnip 1.4.1", drops its "Tools & Techniques"
// section, and edits one page. Over the harvests that read every page
// (the last reads three, beside sixteen pages read since the release),
// the edited page's update is the only entry, its diff its sentence.
func TestChromeRemovedIsNoNews(t *testing.T) {
	e := newNoisyEnv(t, false, 10)
	e.site.Set(bigParsnip())
	e.follow()
	for range 6 {
		e.harvest()
	}
	v := editDoc(bigParsnip(), "/reference/option-39/", "Option 39 is the deepest.")
	v.Release, v.Nav = "parsnip 1.4.1", []string{"Guide", "Reference", "Blog"}
	e.site.Set(v)
	for range 6 {
		e.harvest()
	}
	if got := e.entries(); !slices.Equal(got, []string{"updated /reference/option-39/"}) {
		t.Fatalf("entries %q, want only the edited page's; diffs:\n%s", got, e.diffs())
	}
	changetest.Text(t, e.change("/reference/option-39/", "updated"), "Option 39", db.TextChanged, nil, []string{"Option 39 is the deepest."})
}

// withPost returns v with a post added, newest.
func withPost(v noisysite.Version, p noisysite.Post) noisysite.Version {
	v.Posts = append(slices.Clone(v.Posts), p)
	return v
}

// TestListingsAreFoldedIntoTheirPages: a new post is one entry, created,
// though the home page, the list of posts, the tags and the post before
// it (its "Next:" link) all changed to name it; an edit of its summary
// and its second paragraph is one entry, the post's, though the home page
// and the list show the new summary; a version that changes nothing else
// gives none.
func TestListingsAreFoldedIntoTheirPages(t *testing.T) {
	e := newNoisyEnv(t, false, harvest.DefaultPageFetches)
	e.site.Set(parsnip())
	e.follow()
	e.harvest()
	compost := noisysite.Post{Slug: "compost", Title: "A compost calculator", Paragraphs: []string{"Parsnip now weighs your compost heap.", "Use a bucket."}, Tags: []string{"features", "soil"}}
	e.site.Set(withPost(parsnip(), compost))
	e.harvest()
	if got := e.entries(); !slices.Equal(got, []string{"created /post/compost/"}) {
		t.Fatalf("entries %q, want the new post alone; diffs:\n%s", got, e.diffs())
	}
	changetest.Text(t, e.change("/post/compost/", "created"), "A compost calculator", db.TextChanged, nil,
		[]string{"Parsnip now weighs your compost heap.", "Use a bucket.", "Tags: features, soil", "← Previous: Our autumn sprint"})
	compost.Paragraphs = []string{"Parsnip now weighs and measures your compost heap.", "Use a bucket or a sack."}
	e.site.Set(withPost(parsnip(), compost))
	e.harvest()
	if got := e.entries(); !slices.Equal(got, []string{"created /post/compost/", "updated /post/compost/"}) {
		t.Fatalf("entries %q, want the post's update alone; diffs:\n%s", got, e.diffs())
	}
	// The summary, now on three pages read in this harvest, is taken for
	// a line the site shares, and left out of the diff.
	changetest.Text(t, e.change("/post/compost/", "updated"), "A compost calculator", db.TextChanged,
		[]string{"Use a bucket."}, []string{"Use a bucket or a sack."})
	e.harvest()
	if got := e.entries(); len(got) != 2 {
		t.Errorf("an unchanged site made entries %q", got)
	}
}
