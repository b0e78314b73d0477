package feeds

import (
	"cmp"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DigestItem is one changed page listed in a digest entry.
type DigestItem struct {
	URL      string
	Kind     string // created, updated or deleted
	Datetime time.Time
	Title    string
	Language string // the page's BCP 47 tag, when known
	// Text says in one line of plain text how the page's text changed
	// ("+3 lines, −1: first added line…", "no change to the text"), or
	// "" when that is unknown.
	Text string
}

// DigestHTML renders the content of a digest entry: an HTML list, newest
// first (by Datetime, then URL), each item a link to the page, with its
// kind, its time in a <time> element and its Text. All text is escaped and
// only http and https URLs become links; others are shown as plain text.
// It returns "" for no items.
func DigestHTML(items []DigestItem) string {
	return digestList(items, true)
}

// digestList is DigestHTML; linkGone says whether deleted pages are links
// too: a digest's list keeps the form it has always had, while an entry
// about a deletion alone must not lead to the page that is gone.
func digestList(items []DigestItem, linkGone bool) string {
	if len(items) == 0 {
		return ""
	}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b DigestItem) int {
		if c := b.Datetime.Compare(a.Datetime); c != 0 {
			return c
		}
		return cmp.Compare(a.URL, b.URL)
	})
	var b strings.Builder
	b.WriteString("<ul>")
	for _, it := range sorted {
		writeDigestItem(&b, it, linkGone || !gone(it.Kind))
	}
	b.WriteString("</ul>")
	return b.String()
}

func writeDigestItem(b *strings.Builder, it DigestItem, link bool) {
	text := strings.TrimSpace(CleanText(it.Title))
	if text == "" {
		text = strings.TrimSpace(CleanText(it.URL))
	}
	b.WriteString("<li")
	if lang := cleanLanguage(it.Language); lang != "" {
		fmt.Fprintf(b, ` lang="%s"`, lang)
	}
	b.WriteString(">")
	if href := SafeURL(it.URL); href != "" && link {
		fmt.Fprintf(b, `<a href="%s">%s</a>`, html.EscapeString(href), html.EscapeString(text))
	} else {
		b.WriteString(html.EscapeString(text))
	}
	fmt.Fprintf(b, " (%s", html.EscapeString(kindWord(it.Kind)))
	if !it.Datetime.IsZero() {
		t := it.Datetime.UTC()
		fmt.Fprintf(b, `, <time datetime="%s">%s</time>`,
			t.Format(time.RFC3339), t.Format("2006-01-02 15:04 UTC"))
	}
	b.WriteString(")")
	if line := strings.TrimSpace(CleanText(it.Text)); line != "" {
		b.WriteString(" — " + html.EscapeString(line))
	}
	b.WriteString("</li>")
}

// gone reports whether a change of kind removed its page.
func gone(kind string) bool {
	return kindWord(kind) == "deleted"
}

// DigestMoreHTML ends the content of a digest entry that lists only some
// of its changes: how many more there are, and a link to the page that
// shows them (plain text when pageURL is not http or https).
func DigestMoreHTML(more int, pageURL string) string {
	where := "the collection's page"
	if href := SafeURL(pageURL); href != "" {
		where = fmt.Sprintf(`<a href="%s">%s</a>`, html.EscapeString(href), where)
	}
	noun := "changes"
	if more == 1 {
		noun = "change"
	}
	return fmt.Sprintf("<p>… and %s more %s: see %s.</p>", thousands(more), noun, where)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// kindWord is the past participle shown for a change kind; kinds other
// than the three known ones read as "changed".
func kindWord(kind string) string {
	switch k := strings.ToLower(strings.TrimSpace(kind)); k {
	case "created", "updated", "deleted":
		return k
	}
	return "changed"
}

// DigestTitle is the title of a digest entry, naming its pages newest
// first: "About me updated on My Shrine", "Cats and Dogs updated on My
// Shrine", "Cats, Dogs and Birds created on X", and past three pages the
// first two and how many more: "Cats, Dogs and 5 more pages changed on
// X". A page is counted once and named by its title, or by its address
// when the title says nothing of it (see pageNames). The verb is the kind
// all pages share, or "changed" when kinds are mixed. Without a
// collection name the " on ..." part is left out.
func DigestTitle(collection string, items []DigestItem) string {
	seen := make(map[string]bool, len(items))
	verb := ""
	for _, it := range items {
		seen[it.URL] = true
		switch k := kindWord(it.Kind); {
		case verb == "":
			verb = k
		case verb != k:
			verb = "changed"
		}
	}
	return digestTitle(collection, pageNames(collection, items), len(seen), verb)
}

// DigestTitleOf is DigestTitle for a digest whose items are not all at
// hand: items are the newest of them, pages counts its distinct pages, and
// kind is the kind they all share, or "" when kinds are mixed.
func DigestTitleOf(collection string, items []DigestItem, pages int, kind string) string {
	return digestTitle(collection, pageNames(collection, items), pages, kindWord(kind))
}

// namedPages is how many pages a title names before "and N more".
const (
	namedPages    = 3
	namedFirst    = 2  // named when there are more than namedPages
	maxNameInText = 60 // runes of one page's name in a title
)

// pageNames names each page of items once, newest first: by its title,
// unless it has none, or it is the collection's name, or another page
// has it too (many sites give every page the site's name); then by its
// address on the site ("/about.html", or "the home page").
func pageNames(collection string, items []DigestItem) []string {
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b DigestItem) int {
		if c := b.Datetime.Compare(a.Datetime); c != 0 {
			return c
		}
		return cmp.Compare(a.URL, b.URL)
	})
	seen := map[string]bool{}
	var pages []DigestItem
	titled := map[string]int{}
	for _, it := range sorted {
		if !seen[it.URL] {
			seen[it.URL] = true
			pages = append(pages, it)
			titled[oneLine(it.Title)]++
		}
	}
	names := make([]string, len(pages))
	for i, it := range pages {
		name := oneLine(it.Title)
		if name == "" || titled[name] > 1 || strings.EqualFold(name, oneLine(collection)) {
			name = pathName(it.URL)
		}
		if r := []rune(name); len(r) > maxNameInText {
			name = strings.TrimSpace(string(r[:maxNameInText-1])) + "…"
		}
		names[i] = name
	}
	return names
}

// oneLine is s as one line of text, its whitespace collapsed.
func oneLine(s string) string { return strings.Join(strings.Fields(CleanText(s)), " ") }

// pathName names a page by its address without scheme and host: its
// path and query, "the home page" for the site's root, or the whole
// address when it is not an absolute URL.
func pathName(raw string) string {
	raw = oneLine(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	switch p := u.EscapedPath(); {
	case (p == "" || p == "/") && u.RawQuery == "":
		return "the home page"
	case p == "":
		return "/?" + u.RawQuery
	default:
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		return p
	}
}

func digestTitle(collection string, names []string, pages int, verb string) string {
	if verb == "" {
		verb = "changed"
	}
	title := fmt.Sprintf("%d %s", pages, plural(pages, "page", "pages"))
	if len(names) > 0 && pages > 0 {
		shown := min(len(names), pages)
		if pages > namedPages || shown < pages {
			shown = min(shown, namedFirst)
		}
		named := names[:shown]
		if more := pages - shown; more > 0 {
			named = append(slices.Clone(named), fmt.Sprintf("%d more %s", more, plural(more, "page", "pages")))
		}
		title = joinAnd(named)
	}
	title += " " + verb
	if name := strings.TrimSpace(CleanText(collection)); name != "" {
		title += " on " + name
	}
	return title
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
