package feeds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/mmcdole/gofeed/rss"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// richFeed has everything a feed can carry: a hub, paging links, and
// entries with authors, languages, categories and summaries.
func richFeed() *Feed {
	f := sampleFeed()
	f.SelfURL = "https://tidings.example/feeds/7.atom?before=1.0.2"
	f.HubURL = "https://hub.example/"
	f.NextURL = "https://tidings.example/feeds/7.atom?before=1.0.1"
	f.FirstURL = "https://tidings.example/feeds/7.atom"
	f.Entries[0].Author = "Ann"
	f.Entries[0].Language = "fr-CA"
	f.Entries[0].Categories = []string{"art", " art ", "", "cats  &  dogs", "art"}
	f.Entries = append(f.Entries, Entry{
		ID:          TagURI("tidings.example", day1, "collection/7/change/abc"),
		Title:       PageTitle("deleted", "", "https://shrine.example/old.html"),
		Updated:     day1.Add(-3600e9),
		Link:        "https://shrine.example/", // the page is gone: its collection
		ContentHTML: PageHTML(DigestItem{URL: "https://shrine.example/old.html", Kind: "deleted", Datetime: day1}, "Gone & done", ""),
		Summary:     "Gone & done",
	})
	return f
}

func renderAs(t *testing.T, f *Feed, format Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f, format); err != nil {
		t.Fatalf("Write %s: %v", format, err)
	}
	return buf.Bytes()
}

func parseAny(t *testing.T, out []byte, format Format) *gofeed.Feed {
	t.Helper()
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	parsed, err := p.ParseString(string(out))
	if err != nil {
		t.Fatalf("gofeed %s: %v\n%s", format, err, out)
	}
	want := map[Format]string{Atom: "atom", RSS: "rss", JSON: "json"}[format]
	if parsed.FeedType != want {
		t.Fatalf("feed type %q, want %q", parsed.FeedType, want)
	}
	return parsed
}

func TestFormatsReadBackAlike(t *testing.T) {
	in := richFeed()
	for _, format := range Formats {
		t.Run(format.String(), func(t *testing.T) {
			out := renderAs(t, in, format)
			if format != JSON {
				wellFormed(t, out)
			}
			f := parseAny(t, out, format)
			if f.Title != in.Title || f.Link != in.AlternateURL || f.FeedLink != in.SelfURL {
				t.Errorf("feed: title %q, link %q, self %q", f.Title, f.Link, f.FeedLink)
			}
			if len(f.Items) != len(in.Entries) {
				t.Fatalf("%d items, want %d", len(f.Items), len(in.Entries))
			}
			for i, want := range in.Entries {
				got := f.Items[i]
				if got.GUID != want.ID || got.Title != want.Title || got.Link != want.Link {
					t.Errorf("item %d: id %q title %q link %q; want %q %q %q", i, got.GUID, got.Title, got.Link, want.ID, want.Title, want.Link)
				}
				date := got.UpdatedParsed
				if date == nil {
					date = got.PublishedParsed
				}
				if date == nil || !date.Equal(want.Updated) {
					t.Errorf("item %d: date %v, want %v", i, date, want.Updated)
				}
				if got.Content != want.ContentHTML {
					t.Errorf("item %d: content %q, want %q", i, got.Content, want.ContentHTML)
				}
			}
			first := f.Items[0]
			if len(first.Authors) != 1 || first.Authors[0].Name != "Ann" {
				t.Errorf("first item authors %+v, want Ann", first.Authors)
			}
			if want := []string{"art", "cats & dogs"}; !slices.Equal(first.Categories, want) {
				t.Errorf("first item categories %q, want %q", first.Categories, want)
			}
			if f.Items[2].Description != "Gone & done" && format != RSS {
				t.Errorf("third item summary %q", f.Items[2].Description)
			}
		})
	}
}

func TestAtomExtras(t *testing.T) {
	out := renderAs(t, richFeed(), Atom)
	_, orig := parseAtom(t, out)
	rels := map[string]string{}
	for _, l := range orig.Links {
		rels[l.Rel] = l.Href
	}
	want := map[string]string{
		"self": "https://tidings.example/feeds/7.atom?before=1.0.2", "alternate": "https://shrine.example/",
		"first": "https://tidings.example/feeds/7.atom", "current": "https://tidings.example/feeds/7.atom",
		"next": "https://tidings.example/feeds/7.atom?before=1.0.1", "prev-archive": "https://tidings.example/feeds/7.atom?before=1.0.1",
	}
	for rel, href := range want {
		if rels[rel] != href {
			t.Errorf("rel=%q href %q, want %q", rel, rels[rel], href)
		}
	}
	if _, ok := rels["hub"]; ok {
		t.Errorf("an older page names the hub; only the newest is a topic")
	}
	if !bytes.Contains(out, []byte(`<entry xml:lang="fr-CA">`)) {
		t.Errorf("entry lacks xml:lang:\n%s", out)
	}
	if !bytes.Contains(out, []byte(`<category term="cats &amp; dogs"></category>`)) {
		t.Errorf("category lacks term:\n%s", out)
	}
	e := orig.Entries[0]
	if len(e.Authors) != 1 || e.Authors[0].Name != "Ann" {
		t.Errorf("entry authors %+v", e.Authors)
	}

	head := richFeed()
	head.FirstURL, head.SelfURL = "", "https://tidings.example/feeds/7.atom"
	_, orig = parseAtom(t, renderAs(t, head, Atom))
	found := false
	for _, l := range orig.Links {
		found = found || (l.Rel == "hub" && l.Href == "https://hub.example/")
		if l.Rel == "first" || l.Rel == "current" {
			t.Errorf("the newest page links rel=%q", l.Rel)
		}
	}
	if !found {
		t.Errorf("the newest page does not name the hub: %+v", orig.Links)
	}
}

func TestRSSExtras(t *testing.T) {
	head := richFeed()
	head.FirstURL, head.SelfURL = "", "https://tidings.example/feeds/7.rss"
	out := renderAs(t, head, RSS)
	parsed := parseAny(t, out, RSS)
	orig := parsed.OriginalFeed().(*rss.Feed)
	if orig.Version != "2.0" {
		t.Errorf("version %q", orig.Version)
	}
	for _, want := range []string{
		`<guid isPermaLink="false">tag:tidings.example,2024-05-02:collection/7/run/42</guid>`,
		`<atom:link href="https://hub.example/" rel="hub"></atom:link>`,
		`<atom:link href="https://tidings.example/feeds/7.rss" rel="self" type="application/rss+xml"></atom:link>`,
		`<atom:link href="https://tidings.example/feeds/7.atom?before=1.0.1" rel="next" type="application/rss+xml"></atom:link>`,
		`<dc:creator>Ann</dc:creator>`, `<dc:language>fr-CA</dc:language>`,
		`<category>art</category>`, `<category>cats &amp; dogs</category>`,
		`<pubDate>Thu, 02 May 2024 18:05:07 +0000</pubDate>`,
		// The description is the content, summary and all: readers that
		// show it alone still learn what changed.
		`&lt;p&gt;Gone &amp;amp; done&lt;/p&gt;</description>`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("RSS lacks %s:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("<author>")) {
		t.Errorf("RSS <author> must be an e-mail address; names go in dc:creator:\n%s", out)
	}
}

func TestJSONExtras(t *testing.T) {
	head := richFeed()
	head.FirstURL, head.SelfURL = "", "https://tidings.example/feeds/7.json"
	out := renderAs(t, head, JSON)
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["version"] != "https://jsonfeed.org/version/1.1" || doc["next_url"] != head.NextURL || doc["feed_url"] != head.SelfURL {
		t.Errorf("version %v, next_url %v, feed_url %v", doc["version"], doc["next_url"], doc["feed_url"])
	}
	hubs, _ := doc["hubs"].([]any)
	if len(hubs) != 1 || hubs[0].(map[string]any)["url"] != "https://hub.example/" || hubs[0].(map[string]any)["type"] != "WebSub" {
		t.Errorf("hubs %v", doc["hubs"])
	}
	item := doc["items"].([]any)[0].(map[string]any)
	if item["language"] != "fr-CA" || item["date_modified"] != "2024-05-02T18:05:07Z" {
		t.Errorf("item language %v, date_modified %v", item["language"], item["date_modified"])
	}
	if tags, _ := item["tags"].([]any); len(tags) != 2 {
		t.Errorf("tags %v", item["tags"])
	}
	gone := doc["items"].([]any)[2].(map[string]any)
	if got, want := gone["content_text"], "- https://shrine.example/old.html (deleted, 2024-05-01 09:30 UTC)\nGone & done"; got != want {
		t.Errorf("content_text %q, want %q", got, want)
	}

	empty := renderAs(t, &Feed{ID: "tag:x,2024-01-01:c", Updated: day1}, JSON)
	if !bytes.Contains(empty, []byte(`"items": []`)) {
		t.Errorf("a feed without entries lacks the required items array:\n%s", empty)
	}
}

// TestFeedLanguage: a language every entry shares is the feed's in RSS and
// JSON Feed, which have no per-entry language of their own in RSS's case.
func TestFeedLanguage(t *testing.T) {
	f := sampleFeed()
	for i := range f.Entries {
		f.Entries[i].Language = "de"
	}
	if p := parseAny(t, renderAs(t, f, RSS), RSS); p.Language != "de" {
		t.Errorf("RSS language %q", p.Language)
	}
	if p := parseAny(t, renderAs(t, f, JSON), JSON); p.Language != "de" {
		t.Errorf("JSON language %q", p.Language)
	}
	f.Entries[0].Language = "<script>"
	out := renderAs(t, f, Atom)
	if bytes.Contains(out, []byte("script")) {
		t.Errorf("a malformed language was written:\n%s", out)
	}
}

func hostileEntries() *Feed {
	f := hostileFeed()
	f.Entries[0].Author = "<b>Eve</b>\x07"
	f.Entries[0].Categories = []string{"<script>x</script>", "\x00"}
	f.Entries[0].ContentHTML += `<script>alert(9)</script><img src=x onerror=alert(8)><a href="javascript:alert(7)">x</a><p onclick="alert(6)">p</p>`
	f.Entries = append(f.Entries, Entry{
		ID:          "tag:tidings.example,2024-05-02:collection/9/change/1",
		Title:       PageTitle("updated", "<script>alert('title')</script>\x01\x02 Gallery", "https://s.example/g"),
		Updated:     day2,
		Link:        "https://s.example/g",
		ContentHTML: PageHTML(DigestItem{URL: "https://s.example/g", Kind: "updated", Datetime: day2, Title: "<script>alert('t')</script>\x1b"}, "<img src=x onerror=alert(1)>\x0c summary", ""),
		Summary:     "<img src=x onerror=alert(1)>\x0c summary",
	})
	return f
}

func TestFormatsHostile(t *testing.T) {
	in := hostileEntries()
	for _, format := range Formats {
		t.Run(format.String(), func(t *testing.T) {
			out := renderAs(t, in, format)
			if format != JSON {
				wellFormed(t, out)
			}
			if bytes.Contains(bytes.ToLower(out), []byte("<script")) {
				t.Errorf("raw output holds <script:\n%s", out)
			}
			f := parseAny(t, out, format)
			for i, it := range f.Items {
				noActiveHTML(t, fmt.Sprintf("item %d content", i), it.Content)
				if format == RSS {
					// An RSS description is HTML too.
					noActiveHTML(t, fmt.Sprintf("item %d description", i), it.Description)
				}
				for _, text := range []string{it.Title, it.Description, it.Content} {
					if strings.ContainsAny(text, "\x00\x01\x02\x07\x0b\x0c\x1b") {
						t.Errorf("item %d holds a control character: %q", i, text)
					}
				}
			}
			if got, want := f.Items[1].Description, "<img src=x onerror=alert(1)> summary"; format != RSS && got != want {
				t.Errorf("summary read back %q, want the text %q", got, want)
			}
			if got, want := f.Items[1].Title, "Updated: <script>alert('title')</script> Gallery"; got != want {
				t.Errorf("title read back %q, want the text %q", got, want)
			}
		})
	}
}

// noActiveHTML fails if the HTML fragment s holds anything a browser
// would run or load: script or style elements, images, frames, event
// handler attributes, or links to other schemes than http and https.
func noActiveHTML(t *testing.T, what, s string) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(s), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
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
				if strings.HasPrefix(strings.ToLower(a.Key), "on") || a.Key == "style" || a.Key == "src" ||
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

func TestSanitizeHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{`<ul><li lang="fr"><a href="https://a.example/x?a=1&amp;b=2">A</a> (<time datetime="2024-05-01T10:00:00Z">x</time>)</li></ul>`,
			`<ul><li lang="fr"><a href="https://a.example/x?a=1&amp;b=2">A</a> (<time datetime="2024-05-01T10:00:00Z">x</time>)</li></ul>`},
		{`<p>a<script>alert(1)</script>b</p>`, `<p>ab</p>`},
		{`<a href="javascript:alert(1)">x</a>`, `x`},
		{`<a href="/relative">x</a>`, `x`},
		{`<img src=x onerror=alert(1)><p style="x" onclick="y">t</p>`, `<p>t</p>`},
		{`<li lang="&quot;><script>">t</li>`, `<li>t</li>`},
		{"bad\x00\x0bbytes", "badbytes"},
	}
	for _, tt := range tests {
		if got := sanitizeHTML(tt.in); got != tt.want {
			t.Errorf("sanitizeHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatByExt(t *testing.T) {
	for _, f := range Formats {
		got, ok := FormatByExt(f.Ext())
		if !ok || got != f {
			t.Errorf("FormatByExt(%q) = %v %v", f.Ext(), got, ok)
		}
	}
	for _, ext := range []string{"", "xml", "ATOM", "rss2"} {
		if _, ok := FormatByExt(ext); ok {
			t.Errorf("FormatByExt(%q) succeeded", ext)
		}
	}
	if Atom.MediaType() != "application/atom+xml" || RSS.MediaType() != "application/rss+xml" || JSON.MediaType() != "application/feed+json" {
		t.Errorf("media types %q %q %q", Atom.MediaType(), RSS.MediaType(), JSON.MediaType())
	}
}

func TestWriteFormatsGolden(t *testing.T) {
	for _, format := range []Format{RSS, JSON} {
		t.Run(format.String(), func(t *testing.T) {
			head := richFeed()
			head.FirstURL, head.SelfURL = "", "https://tidings.example/feeds/7."+format.Ext()
			got := renderAs(t, head, format)
			path := filepath.Join("testdata", "rich.golden."+format.Ext())
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run with -update if intended)\ngot:\n%s", path, got)
			}
			if again := renderAs(t, head, format); !bytes.Equal(again, got) {
				t.Errorf("two renders differ")
			}
		})
	}
}

// TestMicrosecondsInAtomAndJSON: an entry dated with microseconds, as a
// change list writes them, keeps them in Atom and JSON Feed, read back;
// RSS's dates have seconds only.
func TestMicrosecondsInAtomAndJSON(t *testing.T) {
	f := sampleFeed()
	at := time.Date(2013, 1, 2, 13, 0, 2, 123456789, time.UTC)
	f.Entries[0].Updated, f.Entries[0].Published = at, at
	for _, format := range []Format{Atom, JSON} {
		parsed := parseAny(t, renderAs(t, f, format), format)
		got := parsed.Items[0].UpdatedParsed
		if got == nil || !got.Equal(at.Truncate(time.Microsecond)) {
			t.Errorf("%s: entry updated %v, want %v", format, got, at.Truncate(time.Microsecond))
		}
	}
}
