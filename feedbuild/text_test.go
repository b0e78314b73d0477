package feedbuild

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"tidings/db"
	"tidings/feeds"
	"tidings/pagetext"
)

const artPage = "https://rich.example/art/"

// diffJSON is the stored form of the diff from old to new, as the harvest
// writes it.
func diffJSON(t *testing.T, old, new string) string {
	t.Helper()
	b, err := json.Marshal(pagetext.Compare(old, new))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openingJSON is a created page's diff as harvests store it.
func openingJSON(t *testing.T, text string) string {
	t.Helper()
	b, err := json.Marshal(pagetext.Opening(text))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// numbered is n lines "prefix 1", "prefix 2", ….
func numbered(prefix string, n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("%s %d", prefix, i+1)
	}
	return strings.Join(lines, "\n")
}

// textChanges is one harvest of every case an entry can say of a page's
// text, keyed by the page's file name.
func textChanges(t *testing.T, at time.Time) []db.Change {
	t.Helper()
	ch := func(file, kind, title, textChange, diff string) db.Change {
		return db.Change{URL: artPage + file, Kind: kind, Datetime: at, Title: title, TextChange: textChange, Diff: diff}
	}
	return []db.Change{
		ch("cats.html", "updated", "Cats of the Month", db.TextChanged,
			diffJSON(t, "Tabby sleeps all day.\nGinger hunts mice.", "Tabby purrs all day.\nGinger hunts mice.\nSiamese joins the club.")),
		ch("style.html", "updated", "Gallery", db.TextUnchanged, ""),
		ch("kittens.html", "created", "New Kittens", db.TextChanged, openingJSON(t, numbered("Kitten", 8))),
		ch("old.html", "deleted", "Old News", db.TextUnknown, ""),
		ch("long.html", "updated", "Long Page", db.TextChanged, diffJSON(t, numbered("Before", 30), numbered("After", 30))),
		ch("evil.html", "updated", `<script>alert("t")</script> Evil & Co`, db.TextChanged,
			diffJSON(t, "Safe line.", "Safe line.\n<script>alert(1)</script>\n<img src=x onerror=alert(2)> & more")),
		ch("plain.html", "updated", "", db.TextUnknown, ""),
	}
}

// readBack builds one document of the art collection's feed, renders it
// and reads it with gofeed, by entry title.
func readBack(t *testing.T, b *Builder, spec *Spec, format feeds.Format, perPage bool) (map[string]*gofeed.Item, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := feeds.Write(&buf, build(t, b, spec, format, Page{PerPage: perPage}), format); err != nil {
		t.Fatal(err)
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("gofeed %s: %v\n%s", format, err, buf.Bytes())
	}
	items := map[string]*gofeed.Item{}
	for _, it := range f.Items {
		items[it.Title] = it
	}
	return items, buf.Bytes()
}

var (
	insPattern = regexp.MustCompile(`<ins[^>]*>(.*?)</ins>`)
	delPattern = regexp.MustCompile(`<del[^>]*>(.*?)</del>`)
)

func marked(p *regexp.Regexp, html string) []string {
	var out []string
	for _, m := range p.FindAllStringSubmatch(html, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestPageEntriesSayWhatChanged reads per-page entries back from every
// format: each is titled by its page, and its content holds what the
// page's text gained and lost, or says that the text stayed the same.
func TestPageEntriesSayWhatChanged(t *testing.T) {
	s := newTestStore(t)
	s.save(t, s.art, t0, "", textChanges(t, t0.Add(-time.Hour))...)
	b := s.builder(t, Options{})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range feeds.Formats {
		t.Run(format.String(), func(t *testing.T) {
			items, raw := readBack(t, b, spec, format, true)
			get := func(title string) *gofeed.Item {
				t.Helper()
				it := items[title]
				if it == nil {
					t.Fatalf("no entry %q among %d", title, len(items))
				}
				return it
			}

			cats := get("Updated: Cats of the Month")
			if got := marked(insPattern, cats.Content); !slices.Equal(got, []string{"purrs", "Siamese joins the club."}) {
				t.Errorf("cats: added %q\n%s", got, cats.Content)
			}
			if got := marked(delPattern, cats.Content); !slices.Equal(got, []string{"sleeps"}) {
				t.Errorf("cats: removed %q\n%s", got, cats.Content)
			}
			if cats.Link != artPage+"cats.html" {
				t.Errorf("cats: link %q", cats.Link)
			}

			style := get("Updated: Gallery")
			if !strings.Contains(style.Content, "<p>No change to the text (markup, images or styles changed).</p>") ||
				strings.Contains(style.Content, "<ins") || strings.Contains(style.Content, "<del") {
				t.Errorf("unchanged text: %s", style.Content)
			}

			kittens := get("Created: New Kittens")
			want := "<p>Kitten 1</p>\n<p>Kitten 2</p>\n<p>Kitten 3</p>\n<p>Kitten 4</p>\n<p>Kitten 5</p>\n<p>and 3 more lines</p>\n"
			if !strings.HasSuffix(kittens.Content, want) {
				t.Errorf("created page: want its opening text, got\n%s", kittens.Content)
			}

			old := get("Deleted: Old News")
			if old.Link != "https://rich.example/" || strings.Contains(old.Content, `href="`+artPage+"old.html") {
				t.Errorf("deleted page linked as if live: link %q, content %s", old.Link, old.Content)
			}
			if !strings.Contains(old.Content, "<code>"+artPage+"old.html</code>") {
				t.Errorf("deleted page does not say where it was: %s", old.Content)
			}

			long := get("Updated: Long Page")
			ins, del := marked(insPattern, long.Content), marked(delPattern, long.Content)
			if len(ins)+len(del) != pagetext.MaxHTMLLines || !strings.Contains(long.Content, "<p>and 20 more lines</p>") {
				t.Errorf("long diff: %d added and %d removed lines shown\n%s", len(ins), len(del), long.Content)
			}

			evil := get(`Updated: <script>alert("t")</script> Evil & Co`)
			for _, bad := range []string{"<script", "<img", "onerror=alert(2)>"} {
				if strings.Contains(strings.ToLower(evil.Content), bad) {
					t.Errorf("site text became markup (%s): %s", bad, evil.Content)
				}
			}
			if got := marked(insPattern, evil.Content); !slices.Equal(got, []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt; &amp; more"}) {
				t.Errorf("hostile diff: added %q", got)
			}
			if format != feeds.JSON && bytes.Contains(raw, []byte("<script")) {
				t.Errorf("a <script> reached the document:\n%s", raw)
			}

			plain := get("Updated: " + artPage + "plain.html")
			if want := feeds.PageHTML(feeds.DigestItem{URL: artPage + "plain.html", Kind: "updated", Datetime: t0.Add(-time.Hour)}, "", ""); plain.Content != want {
				t.Errorf("unknown text: content\n%s\nwant it as before\n%s", plain.Content, want)
			}
		})
	}
}

// TestDigestEntriesSayWhatChanged: a digest lists each page by title with
// a line saying what its text did, and links to the page when the run
// changed only that page and it is still there.
func TestDigestEntriesSayWhatChanged(t *testing.T) {
	s := newTestStore(t)
	s.save(t, s.art, t0.Add(-2*time.Hour), "") // the "now following" entry; digests come after
	s.save(t, s.art, t0, "", textChanges(t, t0.Add(-time.Hour))...)
	s.save(t, s.art, t0.Add(time.Hour), "", db.Change{URL: artPage + "cats.html", Kind: "updated", Datetime: t0.Add(30 * time.Minute),
		Title: "Cats of the Month", TextChange: db.TextChanged, Diff: diffJSON(t, "Tabby purrs all day.", "Tabby purrs all night.")})
	s.save(t, s.art, t0.Add(2*time.Hour), "", db.Change{URL: artPage + "kittens.html", Kind: "deleted", Datetime: t0.Add(90 * time.Minute), Title: "New Kittens"})
	b := s.builder(t, Options{})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	when := `(updated, <time datetime="2025-12-31T23:00:00Z">2025-12-31 23:00 UTC</time>)`
	for _, format := range feeds.Formats {
		t.Run(format.String(), func(t *testing.T) {
			items, _ := readBack(t, b, spec, format, false)
			all := items[`Cats of the Month, <script>alert("t")</script> Evil & Co and 5 more pages changed on Art`]
			if all == nil {
				t.Fatalf("no digest of the first run among %d entries", len(items))
			}
			for _, want := range []string{
				`<a href="` + artPage + `cats.html">Cats of the Month</a> ` + when + ` — Removed: Tabby sleeps all day. Added: Tabby purrs all day. / Siamese joins the club.</li>`,
				`<a href="` + artPage + `style.html">Gallery</a> ` + when + ` — no change to the text</li>`,
				`<a href="` + artPage + `long.html">Long Page</a> ` + when + ` — Removed: Before 1 / Before 2 (and 28 more lines); Added: After 1 / After 2 (and 28 more lines)</li>`,
				`<a href="` + artPage + `old.html">Old News</a> (deleted, `,
				`&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt; Evil &amp; Co</a> ` + when + ` — Added: &lt;script&gt;alert(1)&lt;/script&gt; / &lt;img src=x o`,
				`<a href="` + artPage + `plain.html">` + artPage + `plain.html</a> ` + when + `</li>`,
			} {
				if !strings.Contains(all.Content, want) {
					t.Errorf("digest lacks %s\n%s", want, all.Content)
				}
			}
			if strings.Contains(all.Content, "<ins") || strings.Contains(all.Content, "<script") {
				t.Errorf("digest holds more than one line per page:\n%s", all.Content)
			}
			if all.Link != "https://rich.example/" {
				t.Errorf("digest of many pages links to %q, want the collection", all.Link)
			}
			if one := items["Cats of the Month updated on Art"]; one == nil || one.Link != artPage+"cats.html" {
				t.Errorf("digest of one page does not link to it: %+v", one)
			}
			if gone := items["New Kittens deleted on Art"]; gone == nil || gone.Link != "https://rich.example/" {
				t.Errorf("digest of one deleted page links as if it were live: %+v", gone)
			}
		})
	}
}

// TestTextKeepsIDs: an entry's id is the same whether or not its change
// carries a text diff, so a diff reaching a stored change never makes
// readers see it again.
func TestTextKeepsIDs(t *testing.T) {
	s := newTestStore(t)
	b := s.builder(t, Options{})
	for _, ch := range textChanges(t, t0) {
		bare := ch
		bare.TextChange, bare.Diff = db.TextUnknown, ""
		with, _ := b.pageEntry(collectionScope(s.art), ch, s.art)
		without, _ := b.pageEntry(collectionScope(s.art), bare, s.art)
		if got, want := with.ID, without.ID; got != want {
			t.Errorf("%s: id %q with its text, %q without", ch.URL, got, want)
		}
	}
}

// TestUnreadableDiff: a diff that does not decode shows as an entry
// without one instead of failing the feed.
func TestUnreadableDiff(t *testing.T) {
	ch := db.Change{URL: artPage + "x.html", Kind: "updated", Datetime: t0, TextChange: db.TextChanged, Diff: `{"ops":`}
	if got := TextHTML(ch); got != "" {
		t.Errorf("TextHTML of a broken diff = %q", got)
	}
	if got := textLine(ch); got != "" {
		t.Errorf("textLine of a broken diff = %q", got)
	}
}

func TestDigestLink(t *testing.T) {
	s := newTestStore(t)
	home := CollectionHome(s.art)
	ch := func(file, kind string) db.Change { return db.Change{URL: artPage + file, Kind: kind} }
	for _, tt := range []struct {
		name string
		d    db.Digest
		want string
	}{
		{"one page", db.Digest{Changes: []db.Change{ch("a.html", "updated"), ch("a.html", "created")}}, artPage + "a.html"},
		{"two pages", db.Digest{Changes: []db.Change{ch("a.html", "updated"), ch("b.html", "updated")}}, home},
		{"one page, deleted last", db.Digest{Changes: []db.Change{ch("a.html", "deleted"), ch("a.html", "created")}}, home},
		{"one page not to link", db.Digest{Changes: []db.Change{{URL: "javascript:alert(1)", Kind: "updated"}}}, home},
		{"more pages than listed", db.Digest{Changes: []db.Change{ch("a.html", "updated")}, Omitted: 300, Pages: 2}, home},
		{"one page, more changes than listed", db.Digest{Changes: []db.Change{ch("a.html", "updated")}, Omitted: 300, Pages: 1}, artPage + "a.html"},
		{"no changes", db.Digest{}, home},
	} {
		if got := digestLink(tt.d, s.art); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCreatedEntryFromEitherForm: a created page's change stored with its
// whole text, as harvests did before, shows as one stored with only its
// opening lines.
func TestCreatedEntryFromEitherForm(t *testing.T) {
	s := newTestStore(t)
	text := numbered("Kitten", 60)
	s.save(t, s.art, t0, "",
		db.Change{URL: artPage + "old.html", Kind: "created", Datetime: t0.Add(-time.Hour), Title: "Whole", TextChange: db.TextChanged, Diff: diffJSON(t, "", text)},
		db.Change{URL: artPage + "new.html", Kind: "created", Datetime: t0.Add(-time.Hour), Title: "Opening", TextChange: db.TextChanged, Diff: openingJSON(t, text)})
	b := s.builder(t, Options{})
	spec, err := b.CollectionSpec(t.Context(), s.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	items, _ := readBack(t, b, spec, feeds.Atom, true)
	whole, opening := items["Created: Whole"], items["Created: Opening"]
	if whole == nil || opening == nil {
		t.Fatalf("entries: %v", items)
	}
	want := "<p>Kitten 1</p>\n<p>Kitten 2</p>\n<p>Kitten 3</p>\n<p>Kitten 4</p>\n<p>Kitten 5</p>\n<p>and 55 more lines</p>\n"
	for _, it := range []*gofeed.Item{whole, opening} {
		if !strings.HasSuffix(it.Content, want) {
			t.Errorf("%s: content\n%s\nwant it to end\n%s", it.Title, it.Content, want)
		}
	}
	if len(openingJSON(t, text)) >= len(diffJSON(t, "", text))/5 {
		t.Errorf("opening lines stored in %d bytes, the whole text in %d", len(openingJSON(t, text)), len(diffJSON(t, "", text)))
	}
}
