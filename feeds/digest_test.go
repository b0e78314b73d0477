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
	tests := []struct {
		name       string
		collection string
		items      []DigestItem
		want       string
	}{
		{"several updated", "My Shrine", []DigestItem{page("a", "updated"), page("b", "updated"), page("c", "updated")}, "3 pages updated on My Shrine"},
		{"one created", "X", []DigestItem{page("a", "created")}, "1 page created on X"},
		{"one deleted", "X", []DigestItem{page("a", "Deleted")}, "1 page deleted on X"},
		{"mixed kinds", "X", []DigestItem{page("a", "created"), page("b", "updated"), page("c", "deleted"), page("d", "updated"), page("e", "updated")}, "5 pages changed on X"},
		{"same page twice", "X", []DigestItem{page("a", "updated"), page("a", "updated")}, "1 page updated on X"},
		{"same page, two kinds", "X", []DigestItem{page("a", "created"), page("a", "updated")}, "1 page changed on X"},
		{"unknown kind", "X", []DigestItem{page("a", "moved"), page("b", "moved")}, "2 pages changed on X"},
		{"no collection name", " ", []DigestItem{page("a", "updated"), page("b", "updated")}, "2 pages updated"},
		{"no items", "X", nil, "0 pages changed on X"},
		{"control chars in name", "A\x00B", []DigestItem{page("a", "updated")}, "1 page updated on AB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DigestTitle(tt.collection, tt.items); got != tt.want {
				t.Errorf("DigestTitle(%q, …) = %q, want %q", tt.collection, got, tt.want)
			}
		})
	}
}
