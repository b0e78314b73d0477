package web

import (
	"bytes"
	stdjson "encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	"github.com/mmcdole/gofeed/json"
	"github.com/mmcdole/gofeed/rss"
	"golang.org/x/net/html"
	htmlatom "golang.org/x/net/html/atom"

	"tidings/accounts"
	"tidings/db"
	"tidings/feeds"
	"tidings/pagetext"
)

// formatOf is the format a feed path asks for by its extension.
func formatOf(t *testing.T, path string) feeds.Format {
	t.Helper()
	p, _, _ := strings.Cut(path, "?")
	_, ext, _ := cutLast(p, ".")
	f, ok := feeds.FormatByExt(ext)
	if !ok {
		t.Fatalf("%s names no feed format", path)
	}
	return f
}

// anyFeed fetches a feed in whatever format its path names, checks the
// media type and parses it with gofeed, keeping the original document.
func anyFeed(t *testing.T, h http.Handler, path string) *gofeed.Feed {
	t.Helper()
	rec := serve(t, h, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, rec.Code, rec.Body)
	}
	format := formatOf(t, path)
	if ct := rec.Header().Get("Content-Type"); ct != format.MediaType()+"; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	if format != feeds.JSON {
		wellFormedXML(t, path, rec.Body.Bytes())
	}
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	f, err := p.Parse(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatalf("GET %s: not a feed: %v\n%s", path, err, rec.Body)
	}
	if want := map[feeds.Format]string{feeds.Atom: "atom", feeds.RSS: "rss", feeds.JSON: "json"}[format]; f.FeedType != want {
		t.Errorf("GET %s: feed type %q, want %q", path, f.FeedType, want)
	}
	return f
}

func wellFormedXML(t *testing.T, what string, b []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", what, err, b)
		}
	}
}

// withFormat puts ext in place of a feed path's extension, keeping its
// query.
func withFormat(path string, f feeds.Format) string {
	p, q, hasQ := strings.Cut(path, "?")
	base, _, _ := cutLast(p, ".")
	out := base + "." + f.Ext()
	if hasQ {
		out += "?" + q
	}
	return out
}

// entryView is what every format must agree on for one entry.
type entryView struct{ ID, Title, Link string }

func entryViews(f *gofeed.Feed) []entryView {
	var out []entryView
	for _, it := range f.Items {
		out = append(out, entryView{it.GUID, it.Title, it.Link})
	}
	return out
}

// ids returns the entry ids of a parsed feed, in order.
func ids(f *gofeed.Feed) []string {
	var out []string
	for _, it := range f.Items {
		out = append(out, it.GUID)
	}
	return out
}

// rels returns a parsed feed's links by rel, whatever its format.
func rels(f *gofeed.Feed) map[string]string {
	out := map[string]string{}
	switch orig := f.OriginalFeed().(type) {
	case *atom.Feed:
		for _, l := range orig.Links {
			out[l.Rel] = l.Href
		}
	case *rss.Feed:
		for _, l := range orig.Extensions["atom"]["link"] {
			out[l.Attrs["rel"]] = l.Attrs["href"]
		}
	case *json.Feed:
		out["self"] = orig.FeedURL
		if orig.NextURL != "" {
			out["next"] = orig.NextURL
		}
	}
	return out
}

// richCollection stores a site with one collection whose changes carry
// titles, summaries, authors, languages and tags, as SCP and ARC give
// them; it returns the collection.
func richCollection(t *testing.T, store *db.DB, at time.Time) db.Collection {
	t.Helper()
	ctx := t.Context()
	site, err := store.CreateSite(ctx, db.Site{URL: "https://rich.example/", InputURL: "https://rich.example/", Title: "Rich Example"})
	if err != nil {
		t.Fatal(err)
	}
	cols, err := store.SyncCollections(ctx, site.ID, []db.CollectionSpec{{Protocol: "scp", Key: "https://rich.example/art/", SourceURL: "https://rich.example/art.scp.gz", Title: "Art & Cats"}})
	if err != nil {
		t.Fatal(err)
	}
	col := cols[0]
	runs := [][]db.Change{
		{{URL: "https://rich.example/art/cats.html", Kind: "created", Datetime: at.Add(-50 * time.Hour), Title: "Cats", Summary: "Ten new cats.", Author: "Ann", Language: "en", Tags: []string{"cats", "art"}}},
		{
			{URL: "https://rich.example/art/chats.html", Kind: "updated", Datetime: at.Add(-2 * time.Hour), Title: "Les chats", Summary: "Des chats & des chiens.", Author: "Ann", Language: "fr", Tags: []string{"chats"},
				TextChange: db.TextChanged, Diff: diffJSON(t, "Les chats\nLes chats dorment au soleil.", "Les chats\nLes chats ronronnent au soleil.")},
			{URL: "https://rich.example/art/old.html", Kind: "deleted", Datetime: at.Add(-3 * time.Hour), Author: "Ann"},
		},
	}
	for i, changes := range runs {
		finished := at.Add(time.Duration(i-len(runs)) * time.Hour)
		_, err := store.SaveCollectionHarvest(ctx, db.CollectionHarvest{
			Run:     db.Run{SiteID: site.ID, CollectionID: col.ID, StartedAt: finished.Add(-time.Minute), FinishedAt: finished},
			Changes: changes,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return col
}

// diffJSON is the text diff from old to new as the harvest stores it.
func diffJSON(t *testing.T, old, new string) string {
	t.Helper()
	b, err := stdjson.Marshal(pagetext.Compare(old, new))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFormatsAgree reads every feed of the fixtures in all three formats
// and both entry modes: gofeed must find the same entries, with the same
// ids, titles and links, and each document must name itself.
func TestFormatsAgree(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	rich := richCollection(t, fx.store, time.Now().UTC().Truncate(time.Second))
	token := userToken(t, fx.store, signIn(t, fx.store, "ann"))
	h := fx.server(t)

	bases := []string{"/feeds/1", "/feeds/2", fmt.Sprintf("/feeds/%d", rich.ID), "/sites/1", fmt.Sprintf("/sites/%d", rich.SiteID)}
	for i, b := range bases {
		bases[i] = public(t, fx.store, b)
	}
	bases = append(bases, "/u/"+token)
	for _, base := range bases {
		for _, mode := range []string{"", "?entries=page"} {
			var want []entryView
			for _, format := range feeds.Formats {
				path := base + "." + format.Ext() + mode
				f := anyFeed(t, h, path)
				if self := rels(f)["self"]; self != testBase+strings.TrimPrefix(path, "/") {
					t.Errorf("%s: self link %q", path, self)
				}
				got := entryViews(f)
				if len(got) == 0 {
					t.Errorf("%s has no entries", path)
				}
				if format == feeds.Atom {
					want = got
					continue
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s differs from Atom:\n got %q\nwant %q", path, got, want)
				}
			}
		}
	}

	// What the rich changes carry reaches every format.
	for _, format := range feeds.Formats {
		path := public(t, fx.store, fmt.Sprintf("/feeds/%d.%s?entries=page", rich.ID, format.Ext()))
		f := anyFeed(t, h, path)
		// Beside the changes, the entry of the collection's first harvest.
		var items []*gofeed.Item
		for _, it := range f.Items {
			if !strings.HasPrefix(it.Title, "Now following Art & Cats: ") {
				items = append(items, it)
			}
		}
		if len(f.Items) != 4 || len(items) != 3 {
			t.Fatalf("%s: %d entries, %d of changes; want 4 and 3", path, len(f.Items), len(items))
		}
		chats := items[0]
		if chats.Title != "Updated: Les chats" || chats.Link != "https://rich.example/art/chats.html" {
			t.Errorf("%s: first entry %q %q", path, chats.Title, chats.Link)
		}
		if len(chats.Authors) != 1 || chats.Authors[0].Name != "Ann" || !slices.Equal(chats.Categories, []string{"chats"}) {
			t.Errorf("%s: authors %+v, categories %q", path, chats.Authors, chats.Categories)
		}
		if !strings.Contains(chats.Content, "Des chats &amp; des chiens.") {
			t.Errorf("%s: content lacks the summary: %q", path, chats.Content)
		}
		if !strings.Contains(unstyled(chats.Content), "<p>Les chats [<del>dorment</del> → <ins>ronronnent</ins>] au soleil.</p>") {
			t.Errorf("%s: content lacks the text diff: %q", path, chats.Content)
		}
		if old := items[1]; old.Title != "Deleted: https://rich.example/art/old.html" || old.Link != "https://rich.example/" {
			t.Errorf("%s: deleted entry %q links to %q, want the collection", path, old.Title, old.Link)
		}
		if format != feeds.RSS && chats.Description != "Des chats & des chiens." {
			t.Errorf("%s: summary %q", path, chats.Description)
		}
		body := serve(t, h, path).Body.String()
		lang := map[feeds.Format]string{feeds.Atom: `<entry xml:lang="fr">`, feeds.RSS: `<dc:language>fr</dc:language>`, feeds.JSON: `"language": "fr"`}[format]
		if !strings.Contains(body, lang) {
			t.Errorf("%s lacks %s", path, lang)
		}
		d := anyFeed(t, h, withFormat(path, format)[:strings.Index(withFormat(path, format), "?")])
		if len(d.Items) != 2 || d.Items[0].Title != "Les chats and /art/old.html changed on Art & Cats" || len(d.Items[0].Authors) != 1 {
			t.Errorf("%s digests: %q", path, entryViews(d))
		}
		t.Logf("%s as gofeed reads it:\n%s", path, describe(f))
	}
}

// describe summarises a parsed feed for the test log.
func describe(f *gofeed.Feed) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s %s %q self=%s alternate=%s language=%q\n", f.FeedType, f.FeedVersion, f.Title, f.FeedLink, f.Link, f.Language)
	for _, it := range f.Items {
		date := it.UpdatedParsed
		if date == nil {
			date = it.PublishedParsed
		}
		var authors []string
		for _, a := range it.Authors {
			authors = append(authors, a.Name)
		}
		fmt.Fprintf(&b, "  - id=%s\n    title=%q link=%s date=%s authors=%q categories=%q\n", it.GUID, it.Title, it.Link, date.UTC().Format(time.RFC3339), authors, it.Categories)
	}
	return b.String()
}

// userToken returns the feed token of the user a session belongs to.
func userToken(t *testing.T, store *db.DB, session string) string {
	t.Helper()
	u, err := store.SessionUser(t.Context(), accounts.HashToken(session), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return u.FeedToken
}

// diffColours is the only style entry content may hold.
var diffColours = regexp.MustCompile(`^color: #[0-9a-f]{6}; background-color: #[0-9a-f]{6}$`)

// noActiveHTML fails if the HTML fragment s holds anything a browser would
// run or load.
func noActiveHTML(t *testing.T, what, s string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: htmlatom.Div})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "img", "iframe", "object", "embed", "svg", "math", "form":
				t.Errorf("%s holds <%s>: %s", what, n.Data, s)
			}
			for _, a := range n.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				if a.Key == "style" && (n.Data == "ins" || n.Data == "del") && diffColours.MatchString(a.Val) {
					continue // the diff's colours, which load nothing
				}
				if strings.HasPrefix(a.Key, "on") || a.Key == "style" || a.Key == "src" ||
					(a.Key == "href" && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://")) {
					t.Errorf("%s holds %s=%q: %s", what, a.Key, a.Val, s)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
}

// TestHostileChangeText stores changes whose title and summary hold
// characters XML forbids and hostile HTML: every format still parses, and
// no script survives in any HTML the feeds carry.
func TestHostileChangeText(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	col := richCollection(t, fx.store, time.Now().UTC())
	at := time.Now().UTC().Truncate(time.Second)
	_, err := fx.store.SaveCollectionHarvest(t.Context(), db.CollectionHarvest{
		Run: db.Run{SiteID: col.SiteID, CollectionID: col.ID, StartedAt: at, FinishedAt: at},
		Changes: []db.Change{{
			URL: "https://rich.example/art/x.html", Kind: "updated", Datetime: at,
			Title:    "<script>alert(1)</script>\x00\x0b Gallery ]]> \xff",
			Summary:  "<img src=x onerror=alert(2)>\x1b<a href=\"javascript:alert(3)\">click</a>",
			Author:   "</name><script>alert(4)</script>",
			Language: `en"><script>alert(5)</script>`,
			Tags:     []string{"<script>alert(6)</script>", "\x01"},
		}, {
			URL: "javascript:alert(7)", Kind: "created", Datetime: at.Add(-time.Second), Title: "<style>*{}</style>bad link",
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := fx.server(t)
	for _, path := range []string{public(t, fx.store, fmt.Sprintf("/feeds/%d", col.ID)), public(t, fx.store, fmt.Sprintf("/sites/%d", col.SiteID))} {
		for _, mode := range []string{"", "?entries=page"} {
			var titles [][]string
			for _, format := range feeds.Formats {
				p := path + "." + format.Ext() + mode
				body := serve(t, h, p).Body.Bytes()
				if bytes.Contains(bytes.ToLower(body), []byte("<script")) || bytes.Contains(body, []byte("<style")) {
					t.Errorf("%s: raw output holds markup from the site:\n%s", p, body)
				}
				f := anyFeed(t, h, p)
				var ts []string
				for i, it := range f.Items {
					noActiveHTML(t, fmt.Sprintf("%s entry %d content", p, i), it.Content)
					if format == feeds.RSS {
						noActiveHTML(t, fmt.Sprintf("%s entry %d description", p, i), it.Description)
					}
					if strings.ContainsAny(it.Title+it.Description+it.Content, "\x00\x01\x0b\x1b") {
						t.Errorf("%s entry %d holds a control character", p, i)
					}
					ts = append(ts, it.Title)
				}
				titles = append(titles, ts)
			}
			if !slices.Equal(titles[0], titles[1]) || !slices.Equal(titles[0], titles[2]) {
				t.Errorf("%s%s: titles differ across formats: %q", path, mode, titles)
			}
			if mode != "" && !slices.Contains(titles[0], "Updated: <script>alert(1)</script> Gallery ]]> \uFFFD") {
				t.Errorf("%s%s: the hostile title does not read back as text: %q", path, mode, titles[0])
			}
		}
	}
}

// TestFeedPagesLinkAllFormats: a collection's and a site's page offer the
// feed in every format for autodiscovery.
func TestFeedPagesLinkAllFormats(t *testing.T) {
	t.Parallel()
	fx := newFixture(t, nil)
	h := fx.server(t)
	session := signIn(t, fx.store, "ann")
	for page, feed := range map[string]string{"/collection/1": "feeds/1", "/site/1": "sites/1"} {
		body := serveAs(t, h, page, session).Body.String()
		feed := public(t, fx.store, feed)
		for _, format := range feeds.Formats {
			want := fmt.Sprintf(`<link rel="alternate" type="%s"`, format.MediaType())
			href := fmt.Sprintf(`href="%s%s.%s"`, testBase, feed, format.Ext())
			i := strings.Index(body, want)
			if i < 0 || !strings.Contains(body[i:i+200], href) {
				t.Errorf("%s lacks %s … %s", page, want, href)
			}
			if i > strings.Index(body, "</head>") {
				t.Errorf("%s: the %s link is not in the head", page, format)
			}
		}
	}
}

// unstyled drops the inline colours of a diff's <del> and <ins>.
func unstyled(content string) string {
	return regexp.MustCompile(` style="[^"]*"`).ReplaceAllString(content, "")
}
