package feeds

import (
	"strings"
	"testing"
	"time"
)

func TestDigestHTML(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		items []DigestItem
		want  string
	}{
		{"empty", nil, ""},
		{"newest first, then URL", []DigestItem{
			{URL: "https://s.example/old", Kind: "created", Datetime: t0},
			{URL: "https://s.example/b", Kind: "updated", Datetime: t0.Add(time.Hour), Title: "B"},
			{URL: "https://s.example/a", Kind: "deleted", Datetime: t0.Add(time.Hour).In(time.FixedZone("X", 3600))},
		}, "<ul>" +
			`<li><a href="https://s.example/a">https://s.example/a</a> (deleted, <time datetime="2024-05-01T11:00:00Z">2024-05-01 11:00 UTC</time>)</li>` +
			`<li><a href="https://s.example/b">B</a> (updated, <time datetime="2024-05-01T11:00:00Z">2024-05-01 11:00 UTC</time>)</li>` +
			`<li><a href="https://s.example/old">https://s.example/old</a> (created, <time datetime="2024-05-01T10:00:00Z">2024-05-01 10:00 UTC</time>)</li>` +
			"</ul>"},
		{"escaping and unsafe links", []DigestItem{
			{URL: "javascript:alert(1)", Kind: "updated", Datetime: t0, Title: "<script>x</script>"},
			{URL: "https://s.example/?a=1&b=\"2\"", Kind: "weird<kind>"},
		}, "<ul>" +
			`<li>&lt;script&gt;x&lt;/script&gt; (updated, <time datetime="2024-05-01T10:00:00Z">2024-05-01 10:00 UTC</time>)</li>` +
			`<li><a href="https://s.example/?a=1&amp;b=&#34;2&#34;">https://s.example/?a=1&amp;b=&#34;2&#34;</a> (changed)</li>` +
			"</ul>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DigestHTML(tt.items)
			if got != tt.want {
				t.Errorf("DigestHTML =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestDigestHTMLDoesNotReorderInput(t *testing.T) {
	items := []DigestItem{
		{URL: "https://s.example/1", Datetime: day1},
		{URL: "https://s.example/2", Datetime: day2},
	}
	DigestHTML(items)
	if items[0].URL != "https://s.example/1" {
		t.Errorf("DigestHTML reordered its input")
	}
}

func TestDigestHTMLPlainURLText(t *testing.T) {
	got := DigestHTML([]DigestItem{{URL: "javascript:alert(1)", Kind: "updated"}})
	if strings.Contains(got, "<a") || !strings.Contains(got, "javascript:alert(1)") {
		t.Errorf("unsafe URL not shown as plain text: %s", got)
	}
}

func TestDigestTitle(t *testing.T) {
	page := func(url, kind string) DigestItem { return DigestItem{URL: url, Kind: kind} }
	named := func(title string, minutes int) DigestItem {
		return DigestItem{URL: "https://l.example/" + title, Kind: "updated", Title: title, Datetime: day1.Add(time.Duration(minutes) * time.Minute)}
	}
	tests := []struct {
		name       string
		collection string
		items      []DigestItem
		want       string
	}{
		{"two named pages, newest first", "Lantern Garden", []DigestItem{named("Fox Lantern", 1), named("Heron Lantern", 2)}, "Heron Lantern and Fox Lantern updated on Lantern Garden"},
		{"three named", "X", []DigestItem{named("A", 3), named("B", 2), named("C", 1)}, "A, B and C updated on X"},
		{"more than three", "X", []DigestItem{named("A", 5), named("B", 4), named("C", 3), named("D", 2), named("E", 1)}, "A, B and 3 more pages updated on X"},
		{"several updated, by URL", "My Shrine", []DigestItem{page("a", "updated"), page("b", "updated"), page("c", "updated")}, "a, b and c updated on My Shrine"},
		{"one created", "X", []DigestItem{page("a", "created")}, "a created on X"},
		{"one deleted", "X", []DigestItem{page("a", "Deleted")}, "a deleted on X"},
		{"mixed kinds", "X", []DigestItem{page("a", "created"), page("b", "updated"), page("c", "deleted"), page("d", "updated"), page("e", "updated")}, "a, b and 3 more pages changed on X"},
		{"same page twice", "X", []DigestItem{page("a", "updated"), page("a", "updated")}, "a updated on X"},
		{"same page, two kinds", "X", []DigestItem{page("a", "created"), page("a", "updated")}, "a changed on X"},
		{"unknown kind", "X", []DigestItem{page("a", "moved"), page("b", "moved")}, "a and b changed on X"},
		{"no collection name", " ", []DigestItem{page("a", "updated"), page("b", "updated")}, "a and b updated"},
		{"no items", "X", nil, "0 pages changed on X"},
		{"control chars in names", "A\x00B", []DigestItem{{URL: "u", Kind: "updated", Title: "C\x00 \n D"}}, "C D updated on AB"},
		{"pages sharing a title, by address", "Lantern Garden", []DigestItem{
			{URL: "https://l.example/", Kind: "updated", Title: "Lantern Garden (edit 3)", Datetime: day2},
			{URL: "https://l.example/about.html?lang=en", Kind: "updated", Title: "Lantern Garden (edit 3)", Datetime: day1},
			{URL: "https://l.example/fox.html", Kind: "updated", Title: "The Fox Lantern", Datetime: day1},
		}, "the home page, /about.html?lang=en and The Fox Lantern updated on Lantern Garden"},
		{"a page titled as its collection", "My Shrine", []DigestItem{{URL: "https://s.example/cats/", Kind: "created", Title: " my  shrine"}}, "/cats/ created on My Shrine"},
		{"long title", "X", []DigestItem{named(strings.Repeat("Lantern ", 20), 1)}, strings.TrimSpace(strings.Repeat("Lantern ", 8)[:59]) + "… updated on X"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DigestTitle(tt.collection, tt.items); got != tt.want {
				t.Errorf("DigestTitle(%q, …) = %q, want %q", tt.collection, got, tt.want)
			}
		})
	}
}
