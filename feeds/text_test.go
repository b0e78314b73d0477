package feeds

import (
	"testing"
	"time"
)

func TestTagURI(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name     string
		host     string
		date     time.Time
		specific string
		want     string
	}{
		{"plain", "tidings.example", day1, "collection/7", "tag:tidings.example,2024-05-01:collection/7"},
		{"date in UTC", "tidings.example", time.Date(2024, 5, 2, 3, 0, 0, 0, tokyo), "c", "tag:tidings.example,2024-05-01:c"},
		{"host case and port", "Tidings.Example:8443", day1, "c", "tag:tidings.example,2024-05-01:c"},
		{"trailing dot", "tidings.example.", day1, "c", "tag:tidings.example,2024-05-01:c"},
		{"idn host", "bücher.example", day1, "c", "tag:xn--bcher-kva.example,2024-05-01:c"},
		{"email authority", "me@tidings.example", day1, "c", "tag:me@tidings.example,2024-05-01:c"},
		{"allowed punctuation", "h.example", day1, "a/b?c=d&e;f:g@h~i", "tag:h.example,2024-05-01:a/b?c=d&e;f:g@h~i"},
		{"escaped", "h.example", day1, "a b#c<d>é", "tag:h.example,2024-05-01:a%20b%23c%3Cd%3E%C3%A9"},
		{"existing escape kept", "h.example", day1, "a%2Fb%zz%4", "tag:h.example,2024-05-01:a%2Fb%25zz%254"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TagURI(tt.host, tt.date, tt.specific); got != tt.want {
				t.Errorf("TagURI(%q, %v, %q) = %q, want %q", tt.host, tt.date, tt.specific, got, tt.want)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain text", "plain text"},
		{"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
		{"a\x00b\x0bc\x1fd\x7fe", "abcd\x7fe"},
		{"bad \xff\xfe utf8", "bad \uFFFD utf8"},
		{"nonchars \uFFFE\uFFFF end", "nonchars  end"},
		{"emoji 🙂 and é", "emoji 🙂 and é"},
	}
	for _, tt := range tests {
		if got := CleanText(tt.in); got != tt.want {
			t.Errorf("CleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSafeURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"https://a.example/p?q=1&r=2", "https://a.example/p?q=1&r=2"},
		{" HTTP://a.example/ ", "http://a.example/"},
		{"javascript:alert(1)", ""},
		{"JavaScript:alert(1)", ""},
		{"data:text/html,<script>", ""},
		{"/relative/path", ""},
		{"//a.example/x", ""},
		{"mailto:me@a.example", ""},
		{"http:opaque", ""},
		{"https://a.example/\x00x", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SafeURL(tt.in); got != tt.want {
			t.Errorf("SafeURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
