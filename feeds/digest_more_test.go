package feeds

import "testing"

func TestDigestMoreHTML(t *testing.T) {
	tests := []struct {
		more int
		page string
		want string
	}{
		{49800, "https://t.example/collection/3", `<p>… and 49,800 more changes: see <a href="https://t.example/collection/3">the collection's page</a>.</p>`},
		{1, "https://t.example/c?a=1&b=2", `<p>… and 1 more change: see <a href="https://t.example/c?a=1&amp;b=2">the collection's page</a>.</p>`},
		{1234567, "javascript:x", `<p>… and 1,234,567 more changes: see the collection's page.</p>`},
		{999, "", `<p>… and 999 more changes: see the collection's page.</p>`},
	}
	for _, tt := range tests {
		if got := DigestMoreHTML(tt.more, tt.page); got != tt.want {
			t.Errorf("DigestMoreHTML(%d, %q) = %s, want %s", tt.more, tt.page, got, tt.want)
		}
	}
}

func TestDigestTitleOf(t *testing.T) {
	newest := []DigestItem{
		{URL: "https://g.example/a", Title: "Heron Lantern", Kind: "updated", Datetime: day2},
		{URL: "https://g.example/b", Title: "Fox Lantern", Kind: "updated", Datetime: day1},
	}
	tests := []struct {
		items []DigestItem
		pages int
		kind  string
		want  string
	}{
		{newest, 50000, "updated", "Heron Lantern, Fox Lantern and 49998 more pages updated on Gallery"},
		{newest[:1], 1, "created", "Heron Lantern created on Gallery"},
		{newest[:1], 3, "", "Heron Lantern and 2 more pages changed on Gallery"},
		{newest, 3, "updated", "Heron Lantern, Fox Lantern and 1 more page updated on Gallery"},
		{nil, 300, "", "300 pages changed on Gallery"},
	}
	for _, tt := range tests {
		if got := DigestTitleOf("Gallery", tt.items, tt.pages, tt.kind); got != tt.want {
			t.Errorf("DigestTitleOf(%d items, %d, %q) = %q, want %q", len(tt.items), tt.pages, tt.kind, got, tt.want)
		}
	}
}
