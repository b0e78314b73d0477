package publish

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tidings/feeds"
	"tidings/pagetext"
	"tidings/rsync"
)

// Names of a collection's change feed, beside its change list.
const (
	feedAtomName = "changes.atom"
	feedJSONName = "changes.json"
)

// DefaultFeedEntries is how many entries the change feed keeps, newest
// first; older ones are dropped.
const DefaultFeedEntries = 50

// MaxFeedEntries bounds --feed-entries: each entry holds up to 40 lines
// of diff, and a reader fetches the whole feed.
const MaxFeedEntries = 1000

// maxBlobBytes bounds a page's earlier version read from git for the
// feed: pagetext reads no more.
const maxBlobBytes = pagetext.DefaultMaxBody

// changeFeed reads the collection's pages' texts, gives the run's changes
// their notes, and makes the collection's change feed: the entries of
// the last run's feed and one per change of this run, newest first. In
// first runs the changes come from the commits, and the texts they
// compare from git.
func (r *run) changeFeed(ctx context.Context, p *plan, st *state, pages []*page, adds []entry) error {
	old, warn := readTexts(r.o.Dir, p.l)
	if warn != "" {
		r.res.Warnings = append(r.res.Warnings, warn)
	}
	now := texts{}
	budget := maxStateText
	for _, pg := range pages {
		pt, ok := old[pg.url]
		if !ok || pt.Hash != pg.hash {
			pt = readPageText(r.site.dir, pg)
		}
		if pt.Text != nil {
			if len(*pt.Text) > budget {
				pt.Text = nil
			} else {
				budget -= len(*pt.Text)
			}
		}
		now[pg.url] = pt
	}
	p.texts = now
	fromGit := !st.found
	if !fromGit {
		for i := range adds {
			adds[i].note = noteFor(adds[i], old[adds[i].url], now[adds[i].url], r.o.Note)
		}
	}
	newest := slices.Clone(adds)
	slices.SortFunc(newest, func(a, b entry) int { return compareEntries(b, a) })
	newest = newest[:min(len(newest), r.o.FeedEntries)]
	var fresh []feeds.Entry
	for i, e := range newest {
		was, is := old[e.url], now[e.url]
		if fromGit {
			was, is = r.commitTexts(ctx, e)
		}
		fe := r.feedEntry(p, e, was, is)
		// The changes of one run, or of one commit, share their time, and
		// readers order entries by it: a microsecond apart, each has a
		// place of its own, the one the change list gives it.
		for _, later := range newest[i+1:] {
			if later.at.Equal(e.at) {
				fe.Updated = fe.Updated.Add(time.Microsecond)
			}
		}
		fresh = append(fresh, fe)
	}
	prev, warn := readFeedEntries(r.o.Dir, p.l)
	if warn != "" {
		r.res.Warnings = append(r.res.Warnings, warn)
	}
	p.feed = mergeEntries(prev, fresh, r.o.FeedEntries)
	p.res.Feed = p.l.docURL(feedAtomName)
	p.res.FeedTitle = feedTitle(now[p.col.describes].Title, p.col.describes)
	return nil
}

// commitTexts are a page's texts before and after the commit that made
// the change e, read from git.
func (r *run) commitTexts(ctx context.Context, e entry) (was, is pageText) {
	if e.commit == "" || r.dater.git == nil {
		return pageText{}, pageText{}
	}
	read := func(rev string) pageText {
		data, ok := r.dater.git.blob(ctx, rev, e.rel, maxBlobBytes)
		if !ok {
			return pageText{}
		}
		return extractText(data, e.rel, e.url, "")
	}
	if e.kind != rsync.ChangeCreated {
		was = read(e.commit + "^")
	}
	if e.kind != rsync.ChangeDeleted {
		is = read(e.commit)
	}
	return was, is
}

// feedEntry is one change as the change feed tells it: as a per-page
// entry of tidings' own feeds, with the text removed and added in words
// as well as markup.
func (r *run) feedEntry(p *plan, e entry, was, is pageText) feeds.Entry {
	title := is.Title
	if e.kind == rsync.ChangeDeleted || title == "" {
		title = cmp.Or(title, was.Title)
	}
	link := e.url
	if e.kind == rsync.ChangeDeleted {
		link = p.col.describes
	}
	item := feeds.DigestItem{URL: e.url, Kind: e.kind, Datetime: e.at, Title: title}
	return feeds.Entry{
		ID:          entryID(r.o.BaseURL, e),
		Title:       feeds.PageTitle(e.kind, title, e.url),
		Updated:     e.at,
		Link:        link,
		ContentHTML: feeds.PageHTML(item, e.note, textHTML(e.kind, was, is)),
		Summary:     e.note,
	}
}

// textHTML says what the change did to the page's text, "" when that is
// not known.
func textHTML(kind string, was, is pageText) string {
	switch kind {
	case rsync.ChangeCreated:
		if is.Text != nil && *is.Text != "" {
			return pagetext.Opening(*is.Text).FeedHTML()
		}
	case rsync.ChangeUpdated:
		if was.Text == nil || is.Text == nil {
			return ""
		}
		d := pagetext.Compare(*was.Text, *is.Text)
		if d.Unchanged() {
			return feeds.NoTextChangeHTML
		}
		return d.FeedHTML()
	}
	return ""
}

// entryID is a tag: URI of the site's host, dated by the change, naming
// what never changes about it: its page, kind and time.
func entryID(base string, e entry) string {
	host := "localhost"
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		host = strings.ToLower(u.Hostname())
	}
	sum := sha256.Sum256([]byte(e.url + "\n" + e.kind + "\n" + w3c(e.at)))
	return fmt.Sprintf("tag:%s,%s:change/%s", host, e.at.UTC().Format(time.DateOnly), hex.EncodeToString(sum[:16]))
}

// feedTitle names the change feed by the collection's page.
func feedTitle(pageTitle, describes string) string {
	return "Changes to " + cmp.Or(pagetext.Clip(pageTitle, 200), describes)
}

// mergeEntries puts the run's entries with the last feed's, one per id
// (the run's when both have it), newest first, at most n.
func mergeEntries(prev, fresh []feeds.Entry, n int) []feeds.Entry {
	byID := map[string]feeds.Entry{}
	for _, e := range prev {
		byID[e.ID] = e
	}
	for _, e := range fresh {
		byID[e.ID] = e
	}
	out := make([]feeds.Entry, 0, len(byID))
	for _, e := range byID {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b feeds.Entry) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})
	return out[:min(len(out), n)]
}

// jsonFeedItem is what is read back of an item of the JSON Feed the last
// run wrote: the feed's entries are its own state, as the change list is
// the change list's.
type jsonFeedItem struct {
	ID           string `json:"id"`
	URL          string `json:"url"`
	Title        string `json:"title"`
	ContentHTML  string `json:"content_html"`
	Summary      string `json:"summary"`
	DateModified string `json:"date_modified"`
}

// readFeedEntries reads back the entries of the collection's JSON Feed.
// A feed that cannot be read is begun anew, with a warning.
func readFeedEntries(dir string, l layout) ([]feeds.Entry, string) {
	rel := l.file(feedJSONName)
	if err := noLinks(dir, rel); err != nil {
		return nil, err.Error()
	}
	data, err := readCapped(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	again := fmt.Sprintf("; the change feed begins anew with this run's changes (%s)", rel)
	if err != nil {
		return nil, err.Error() + again
	}
	var doc struct {
		Items []jsonFeedItem `json:"items"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil, fmt.Sprintf("%s is not a JSON Feed tidings can read (%v)", rel, err) + again
	}
	var out []feeds.Entry
	for _, it := range doc.Items {
		t, err := time.Parse(time.RFC3339Nano, it.DateModified)
		if err != nil || it.ID == "" {
			continue
		}
		out = append(out, feeds.Entry{ID: it.ID, Title: it.Title, Updated: t.UTC(), Link: it.URL, ContentHTML: it.ContentHTML, Summary: it.Summary})
	}
	return out, ""
}

// feedFiles are the collection's change feed, Atom and JSON Feed.
func (p *plan) feedFiles(o *Options) []outFile {
	l := p.l
	updated := p.at
	// Dated by what it tells, so that runs that change nothing, or that
	// rebuild it whole from the commits, write it the same.
	if len(p.feed) == 0 {
		var newest time.Time
		for _, r := range p.resources {
			if r.lastmod.After(newest) {
				newest = r.lastmod
			}
		}
		if !newest.IsZero() {
			updated = newest
		}
	} else {
		updated = time.Time{}
		for _, e := range p.feed {
			if e.Updated.After(updated) {
				updated = e.Updated
			}
		}
	}
	f := &feeds.Feed{
		ID:           l.docURL(feedAtomName),
		Title:        p.res.FeedTitle,
		Subtitle:     "One entry per changed page of " + p.col.describes + ", with the text removed and added.",
		Updated:      updated,
		Author:       hostOf(o.BaseURL),
		AlternateURL: p.col.describes,
		HubURL:       o.Pings.WebSubHub,
		Entries:      p.feed,
	}
	var out []outFile
	for _, ff := range []struct {
		name   string
		format feeds.Format
	}{{feedAtomName, feeds.Atom}, {feedJSONName, feeds.JSON}} {
		f.SelfURL = l.docURL(ff.name)
		var buf bytes.Buffer
		if err := feeds.Write(&buf, f, ff.format); err != nil {
			// The feed is built here from values checked above.
			panic("publish: write the change feed: " + err.Error())
		}
		out = append(out, outFile{l.file(ff.name), buf.Bytes()})
	}
	return out
}

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}
