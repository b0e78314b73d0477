package hints

import (
	"fmt"
	"reflect"
	"testing"
)

func TestLinkHeader(t *testing.T) {
	const base = "https://example.org/dir/page.html"
	tests := []struct {
		name   string
		values []string
		base   string
		rel    string
		want   []string
	}{
		{"none", nil, base, "resourcesync", nil},
		{"simple", []string{`<https://example.org/rs.xml>; rel="resourcesync"`}, base, "resourcesync",
			[]string{"https://example.org/rs.xml"}},
		{"unquoted rel", []string{`</rs.xml>;rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/rs.xml"}},
		{"rel case-insensitive both ways", []string{`</a.xml>; REL="ResourceSync"`}, base, "RESOURCESYNC",
			[]string{"https://example.org/a.xml"}},
		{"several rel types", []string{`</a.xml>; rel="describedby resourcesync  alternate"`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"rel must match a whole token", []string{`</a.xml>; rel="resourcesync-x"`, `</b.xml>; rel="x-resourcesync"`}, base, "resourcesync", nil},
		{"several links in one value", []string{`</a.xml>; rel="prev", </b.xml>; rel="resourcesync", <c.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/b.xml", "https://example.org/dir/c.xml"}},
		{"several values", []string{`</a.xml>; rel=resourcesync`, `</b.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml", "https://example.org/b.xml"}},
		{"comma inside the URI", []string{`<https://example.org/a,b.xml>; rel=resourcesync, </c.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a,b.xml", "https://example.org/c.xml"}},
		{"comma and semicolon inside quotes", []string{`</a.xml>; title="x, y; z"; rel="resourcesync", </b.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml", "https://example.org/b.xml"}},
		{"escaped quote in quotes", []string{`</a.xml>; title="say \"hi\", then"; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"other params around rel", []string{`</a.xml>; type="application/xml"; rel="resourcesync"; anchor="#x"`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"only the first rel counts", []string{`</a.xml>; rel="prev"; rel="resourcesync"`}, base, "resourcesync", nil},
		{"no rel", []string{`</a.xml>; type="application/xml"`}, base, "resourcesync", nil},
		{"spaces everywhere", []string{"  < /a.xml >  ;  rel = \"resourcesync\"  ,  "}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"spaces around separators", []string{"\t</a.xml> ;\trel = \"resourcesync\" , </b.xml>;rel=resourcesync"}, base, "resourcesync",
			[]string{"https://example.org/a.xml", "https://example.org/b.xml"}},
		{"flag parameter", []string{`</a.xml>; crossorigin; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"malformed link skipped", []string{`garbage "with, comma", </a.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"junk after params skipped", []string{`</a.xml>; rel=resourcesync junk <x>, </b.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml", "https://example.org/b.xml"}},
		{"unterminated URI", []string{`</a.xml; rel=resourcesync`}, base, "resourcesync", nil},
		{"unterminated quote", []string{`</a.xml>; rel="resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"duplicates removed", []string{`</a.xml>; rel=resourcesync, <https://example.org/a.xml>; rel=resourcesync`}, base, "resourcesync",
			[]string{"https://example.org/a.xml"}},
		{"unsafe targets dropped", []string{`<javascript:alert(1)>; rel=resourcesync, <file:///etc/passwd>; rel=resourcesync`}, base, "resourcesync", nil},
		{"no base keeps absolute only", []string{`</a.xml>; rel=resourcesync, <http://example.org/b.xml>; rel=resourcesync`}, "", "resourcesync",
			[]string{"http://example.org/b.xml"}},
		{"other rel asked for", []string{`</a.xml>; rel=resourcesync, </hub>; rel="hub"`}, base, "hub",
			[]string{"https://example.org/hub"}},
		{"empty rel asked for", []string{`</a.xml>; rel=""`}, base, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LinkHeader(tt.values, tt.base, tt.rel)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LinkHeader = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLinkHeaderLimit(t *testing.T) {
	var values []string
	for i := range MaxHintURLs + 10 {
		values = append(values, fmt.Sprintf("</%d.xml>; rel=resourcesync", i))
	}
	if got := LinkHeader(values, "https://example.org/", "resourcesync"); len(got) != MaxHintURLs {
		t.Errorf("got %d URLs, want %d", len(got), MaxHintURLs)
	}
}
