package feeds

import (
	"strings"
	"testing"
)

func TestDigestHTMLText(t *testing.T) {
	items := []DigestItem{
		{URL: "https://s.example/cats", Kind: "updated", Datetime: day2, Title: "Cats", Text: "+2 lines, −1: Tabby <b>purrs</b>"},
		{URL: "https://s.example/style", Kind: "updated", Datetime: day1, Text: " no change to the text\x00 "},
		{URL: "https://s.example/old", Kind: "Deleted", Datetime: day1, Title: "Old news"},
	}
	want := "<ul>" +
		`<li><a href="https://s.example/cats">Cats</a> (updated, <time datetime="2024-05-02T18:05:07Z">2024-05-02 18:05 UTC</time>) — +2 lines, −1: Tabby &lt;b&gt;purrs&lt;/b&gt;</li>` +
		`<li><a href="https://s.example/old">Old news</a> (deleted, <time datetime="2024-05-01T09:30:00Z">2024-05-01 09:30 UTC</time>)</li>` +
		`<li><a href="https://s.example/style">https://s.example/style</a> (updated, <time datetime="2024-05-01T09:30:00Z">2024-05-01 09:30 UTC</time>) — no change to the text</li>` +
		"</ul>"
	got := DigestHTML(items)
	if got != want {
		t.Errorf("DigestHTML =\n%s\nwant\n%s", got, want)
	}
	if sanitizeHTML(got) != got {
		t.Errorf("DigestHTML is changed by the sanitizer:\n%s", sanitizeHTML(got))
	}
}

func TestPageHTMLText(t *testing.T) {
	diff := "<p>Tabby <del>sleeps</del><ins>purrs</ins> all day.</p>\n"
	it := DigestItem{URL: "https://s.example/cats", Kind: "updated", Datetime: day1, Title: "Cats"}
	head := `<ul><li><a href="https://s.example/cats">Cats</a> (updated, <time datetime="2024-05-01T09:30:00Z">2024-05-01 09:30 UTC</time>)</li></ul>`
	for _, tt := range []struct {
		name          string
		summary, text string
		want          string
	}{
		{"a diff after the summary", "New cats.", diff, head + "\n<p>New cats.</p>\n" + diff},
		{"text unchanged", "", NoTextChangeHTML, head + "\n" + NoTextChangeHTML},
		{"text unknown", "", "", head},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := PageHTML(it, tt.summary, tt.text)
			if got != tt.want {
				t.Errorf("PageHTML =\n%s\nwant\n%s", got, tt.want)
			}
			if sanitizeHTML(got) != got {
				t.Errorf("PageHTML is changed by the sanitizer:\n%s", sanitizeHTML(got))
			}
		})
	}

	gone := DigestItem{URL: "https://s.example/old?a=1&b=2", Kind: "deleted", Datetime: day1, Title: "Old <news>"}
	want := `<ul><li>Old &lt;news&gt; (deleted, <time datetime="2024-05-01T09:30:00Z">2024-05-01 09:30 UTC</time>)</li></ul>` +
		"\n" + `<p>It was at <code>https://s.example/old?a=1&amp;b=2</code>.</p>`
	if got := PageHTML(gone, "", ""); got != want {
		t.Errorf("PageHTML of a deleted page =\n%s\nwant\n%s", got, want)
	}
	gone.Title = ""
	if got := PageHTML(gone, "", ""); strings.Contains(got, "<a") || strings.Contains(got, "It was at") {
		t.Errorf("PageHTML of a deleted page without a title: %s", got)
	}
}

// TestSanitizeInsDel: the diff's <ins> and <del> survive, bare; their
// attributes and every element not allowed before still go.
func TestSanitizeInsDel(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"<p>a <del>b</del><ins>c</ins> d</p>", "<p>a <del>b</del><ins>c</ins> d</p>"},
		{`<ins cite="javascript:x" datetime="2024" onclick="x()" class="c" style="s">a</ins>`, "<ins>a</ins>"},
		{`<del title="t">b</del>`, "<del>b</del>"},
		{"<ins><script>alert(1)</script>x</ins>", "<ins>x</ins>"},
		{`<s>s</s><mark>m</mark><u>u</u><img src="https://s.example/i.png"><div>d</div><iframe src="https://s.example/"></iframe>`, "smud"},
	} {
		if got := sanitizeHTML(tt.in); got != tt.want {
			t.Errorf("sanitizeHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSanitizeDiffColours: the inline colours of a diff's <ins> and <del>
// survive as written; other styles, and colours elsewhere, do not.
func TestSanitizeDiffColours(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`<del style="color: #82071e; background-color: #ffebe9">a</del>`, `<del style="color: #82071e; background-color: #ffebe9">a</del>`},
		{`<ins style="color: #0f5323; background-color: #dafbe1">b</ins>`, `<ins style="color: #0f5323; background-color: #dafbe1">b</ins>`},
		{`<ins style="color: red; background: url(https://x.example/t.png); position: fixed">c</ins>`, `<ins>c</ins>`},
		{`<p style="color: #82071e">d</p>`, `<p>d</p>`},
	} {
		if got := sanitizeHTML(tt.in); got != tt.want {
			t.Errorf("sanitizeHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"<p>So far: [<del>212</del> → <ins>340</ins>].</p>\n<p>Removed: <del>Old</del></p>\n", "So far: [212 → 340].\nRemoved: Old"},
		{`<ul><li><a href="https://x.example/">A &amp; B</a> (updated, <time datetime="x">2024-05-01 10:00 UTC</time>) — +1 line</li><li>C</li></ul><p>… and 3 more changes: see the collection's page.</p>`,
			"- A & B (updated, 2024-05-01 10:00 UTC) — +1 line\n- C\n… and 3 more changes: see the collection's page."},
		{"<p>a <em>b</em>  <strong> c</strong>d</p>", "a b cd"},
		{"<p>one<br>two</p>", "one\ntwo"},
		{"", ""},
	} {
		if got := plainText(tt.in); got != tt.want {
			t.Errorf("plainText(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
	}
}
