package pagetext

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
)

func TestExtractTitle(t *testing.T) {
	long := strings.Repeat("ねこ ", 400)
	tests := []struct {
		name, page, want string
	}{
		{"no title, no h1", `<html><body><p>Just a paragraph.</p></body></html>`, ""},
		{"no title, first h1", `<body><h1> Cats  of the <em>Mon</em>th</h1><h1>Second</h1><p>x</p>`, "Cats of the Month"},
		{"whitespace and entities", "<title>\n\t  Cats &amp;amp; &lt;Dogs&gt;&nbsp;&#x263A;\r\n  &eacute;t&eacute;  </title><p>x</p>", "Cats &amp; <Dogs> ☺ été"},
		{"only whitespace falls back to h1", "<title> \n&#32; </title><h1>Gallery</h1>", "Gallery"},
		{"svg title is not the page's", `<body><svg><title>icon</title></svg><p>text</p>`, ""},
		{"first title wins", `<title>One</title><title>Two</title>`, "One"},
		{"control characters dropped", "<title>Bell\x07 &#x1b;[31mred</title>", "Bell [31mred"},
		{"capped", "<title>" + long + "</title>", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Extract([]byte(tt.page), "text/html", "https://shrine.example/")
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "capped" {
				if n := utf8.RuneCountInString(s.Title); n > maxTitle || !strings.HasSuffix(s.Title, "…") {
					t.Errorf("title of %d runes %q…, want at most %d ending in …", n, s.Title[:20], maxTitle)
				}
				return
			}
			if s.Title != tt.want {
				t.Errorf("title = %q, want %q", s.Title, tt.want)
			}
		})
	}
}

func TestExtractLines(t *testing.T) {
	page := `<html><head><title>Links</title></head><body>
<h2>My   links</h2>
<p>Sites I like,
   in no order.<br>Ask to be added!</p>
<ul><li>Cat <a href="/a">shrine</a></li><li>  Dog&nbsp;page </li></ul>
<table><tr><th>Site</th><th>Since</th></tr><tr><td>Cats</td><td>2004</td></tr></table>
<pre>line one
  line   two</pre>
<img src="x.png" alt=" A tabby "><img src="y.png" alt="">
<div hidden>secret</div><span aria-hidden="true">★</span>
</body></html>`
	s, err := Extract([]byte(page), "text/html; charset=utf-8", "https://shrine.example/links.html")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"My links",
		"Sites I like, in no order.",
		"Ask to be added!",
		"Cat shrine",
		"Dog page",
		"Site | Since",
		"Cats | 2004",
		"line one",
		"line two",
		"[A tabby]",
	}, "\n")
	if s.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", s.Text, want)
	}
}

// Readability finds the article on a page with navigation and a footer; a
// page that is mostly a list keeps its whole body.
func TestExtractArticleOrBody(t *testing.T) {
	article := realisticPage(20<<10, 0)
	intro := "<p>" + strings.Repeat("These are the sites I visit every day, and so should you. ", 7) + "</p>"
	links := `<html><head><title>Links</title></head><body><div id="intro"><div><div>` + intro +
		`</div></div></div><div id="links"><span>` +
		strings.Repeat(`<a href="https://a.example/">A cat shrine</a> · <a href="https://b.example/">Dogs</a><br>`, 80) +
		`</span></div></body></html>`
	tests := []struct {
		name, page, method string
		has, hasNot        []string
	}{
		{"article", article, MethodArticle,
			[]string{"Whiskers number 2 sleeps on the warm windowsill", "Age: 3 years", "May | 30"},
			[]string{"Guestbook", "Made with love"}},
		{"links page", links, MethodBody,
			[]string{"These are the sites I visit every day", "\nA cat shrine · Dogs\n"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Extract([]byte(tt.page), "text/html", "https://shrine.example/page.html")
			if err != nil {
				t.Fatal(err)
			}
			if s.Method != tt.method {
				t.Errorf("method = %q, want %q", s.Method, tt.method)
			}
			for _, h := range tt.has {
				if !strings.Contains(s.Text, h) {
					t.Errorf("text lacks %q:\n%.600s", h, s.Text)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(s.Text, h) {
					t.Errorf("text has %q", h)
				}
			}
		})
	}
}

// Script, style, noscript and template content never reaches the text,
// whether readability, the body walk or the streaming path reads the page.
func TestExtractNeverScripts(t *testing.T) {
	hidden := `<script>var SECRET1 = "<p>x</p>";</script><style>.SECRET2{}</style>` +
		`<noscript><p>SECRET3</p></noscript><template><p>SECRET4</p></template>` +
		`<script type="application/ld+json">{"name":"SECRET5"}</script><svg><text>SECRET6</text></svg>`
	short := `<html><head><title>T</title>` + hidden + `</head><body>` + hidden + `<p>Visible.</p>` + hidden + `</body></html>`
	big := `<html><head><title>T</title>` + hidden + `</head><body>` +
		strings.Repeat(`<p>Visible paragraph of the big page.</p>`+hidden, (treeLimit/len(hidden))+10) + `</body></html>`
	tests := []struct{ name, page, visible string }{
		{"short page", short, "Visible."},
		{"article page", strings.Replace(realisticPage(20<<10, 0), "<h2>", hidden+"<h2>", -1), "Whiskers"},
		{"streamed page", big, "Visible paragraph"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Extract([]byte(tt.page), "text/html", "")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(s.Text, tt.visible) {
				t.Errorf("visible text missing: %.200q", s.Text)
			}
			if strings.Contains(s.Text, "SECRET") || strings.Contains(s.Text, "<p>") {
				i := strings.Index(s.Text, "SECRET")
				t.Errorf("hidden content in text (%s): %q", s.Method, s.Text[max(0, i-40):min(len(s.Text), i+40)])
			}
		})
	}
}

func TestExtractCharset(t *testing.T) {
	sjis, err := japanese.ShiftJIS.NewEncoder().String(`<html><head><meta charset="Shift_JIS"><title>猫の部屋</title></head>` +
		`<body><p>今日は猫が窓辺で寝ています。</p></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, contentType, page string
		charset, title, text    string
		guessed                 bool
	}{
		{"shift_jis by meta", "text/html", sjis, "shift_jis", "猫の部屋", "今日は猫が窓辺で寝ています。", false},
		{"latin-1 by header", "text/html; charset=ISO-8859-1", "<title>Caf\xe9</title><p>cr\xe8me</p>", "windows-1252", "Café", "crème", false},
		{"header beats meta", "text/html; charset=utf-8", `<meta charset="shift_jis"><p>été</p>`, "utf-8", "", "été", false},
		{"utf-8 BOM", "text/html", "\xef\xbb\xbf<p>été</p>", "utf-8", "", "été", false},
		{"utf-16 BOM", "text/html", "\xff\xfe<\x00p\x00>\x00\xe9\x00", "utf-16le", "", "é", false},
		{"undeclared utf-8", "text/html", "<p>" + strings.Repeat("x", 2000) + " été</p>", "utf-8", "", strings.Repeat("x", 2000) + " été", false},
		{"undeclared latin-1 is a guess", "text/html", "<p>Caf\xe9 cr\xe8me</p>", "windows-1252", "", "Café crème", true},
		{"declared windows-1252 is no guess", "text/html", `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><p>` + "\x93q\x94</p>", "windows-1252", "", "“q”", false},
		{"unknown charset label", "text/html; charset=klingon", "<p>plain</p>", "utf-8", "", "plain", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Extract([]byte(tt.page), tt.contentType, "")
			if err != nil {
				t.Fatal(err)
			}
			if s.Charset != tt.charset || s.CharsetGuessed != tt.guessed {
				t.Errorf("charset = %q guessed %v, want %q guessed %v", s.Charset, s.CharsetGuessed, tt.charset, tt.guessed)
			}
			if tt.guessed != (len(s.Warnings()) == 1) {
				t.Errorf("warnings %q", s.Warnings())
			}
			if s.Title != tt.title || s.Text != tt.text {
				t.Errorf("title, text = %q, %q; want %q, %q", s.Title, s.Text, tt.title, tt.text)
			}
		})
	}
}

func TestExtractNonHTML(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2}, 100)...)
	sum := sha256.Sum256(png)
	tests := []struct{ name, contentType, mediaType string }{
		{"image", "image/png", "image/png"},
		{"image sniffed", "", "image/png"},
		{"pdf", "application/pdf", "application/pdf"},
		{"audio with parameters", "audio/ogg; codecs=opus", "audio/ogg"},
		{"unparsable header", "Image/PNG;;", "image/png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Extract(png, tt.contentType, "")
			if err != nil {
				t.Fatal(err)
			}
			want := Snapshot{MediaType: tt.mediaType, Size: len(png), ContentHash: hex.EncodeToString(sum[:])}
			if *s != want || s.HasText() {
				t.Errorf("snapshot = %+v, want %+v", *s, want)
			}
		})
	}
}

func TestExtractPlain(t *testing.T) {
	s, err := Extract([]byte("Changelog\r\n\r\n  v2:\tfaster\n\x00v1: first\n"), "text/plain; charset=utf-8", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Changelog\nv2: faster\nv1: first"; s.Text != want || s.Method != MethodPlain || !s.HasText() {
		t.Errorf("snapshot %+v, want text %q", s, want)
	}
	s, err = Options{MaxText: 100}.Extract([]byte(strings.Repeat("ligne été\n", 1000)), "text/plain", "")
	if err != nil || !s.Truncated || len(s.Text) > 100 || len(s.Text) < 90 || !strings.HasPrefix(s.Text, "ligne été\nligne été") {
		t.Errorf("long text: truncated %v, %d bytes, ends %q, err %v", s.Truncated, len(s.Text), s.Text[len(s.Text)-12:], err)
	}
}

func TestExtractEmptyHTML(t *testing.T) {
	s, err := Extract(nil, "text/html", "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "" || !s.HasText() {
		t.Errorf("snapshot %+v, want an empty text that is known", s)
	}
}

// A markup-only change keeps the text hash; a text change moves it.
func TestExtractTextHash(t *testing.T) {
	v1 := `<html><head><title>Cats</title><style>p{color:red}</style></head><body><p>The cat sleeps.</p><ul><li>One</li></ul></body></html>`
	v2 := `<html><head><title>Cats</title><link rel=stylesheet href=new.css></head><body class="x"><div><p class="lead">The   <b>cat</b> sleeps.</p></div><ul><li><a href="/1">One</a></li></ul><script>x()</script></body></html>`
	v3 := strings.Replace(v1, "sleeps", "purrs", 1)
	s1, _ := Extract([]byte(v1), "text/html", "")
	s2, _ := Extract([]byte(v2), "text/html", "")
	s3, _ := Extract([]byte(v3), "text/html", "")
	if s1.ContentHash == s2.ContentHash || s1.TextHash != s2.TextHash {
		t.Errorf("markup change: content hashes equal %v, text hashes equal %v; texts %q, %q",
			s1.ContentHash == s2.ContentHash, s1.TextHash == s2.TextHash, s1.Text, s2.Text)
	}
	if s1.TextHash == s3.TextHash {
		t.Error("text change kept the text hash")
	}
}

func TestExtractCaps(t *testing.T) {
	big := []byte(realisticPage(5<<20, 0))
	s, err := Options{MaxText: 64 << 10}.Extract(big, "text/html", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings()) != 1 {
		t.Errorf("warnings %q, want one about the cut text", s.Warnings())
	}
	if !s.Truncated || len(s.Text) > 64<<10 || len(s.Text) < 60<<10 || !utf8.ValidString(s.Text) {
		t.Errorf("5 MB page: truncated %v, %d bytes of text, want at most %d", s.Truncated, len(s.Text), 64<<10)
	}
	if _, err := (Options{MaxBody: 1 << 20}).Extract(big, "text/html", ""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxBody: err = %v, want ErrTooLarge", err)
	}
	oneWord := []byte("<p>" + strings.Repeat("é", 3<<20) + "</p>")
	s, err = Options{MaxText: 1001}.Extract(oneWord, "text/html", "")
	if err != nil || len(s.Text) > 1001 || !utf8.ValidString(s.Text) || !s.Truncated {
		t.Errorf("one huge word: %d bytes, valid %v, err %v", len(s.Text), utf8.ValidString(s.Text), err)
	}
}

// A 5 MB page costs memory in proportion to itself, not more: it is
// streamed, not parsed into a tree.
func TestExtractLargeMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations")
	}
	scripts := "<html><head><title>Big</title></head><body><p>Small text.</p>" +
		strings.Repeat("<script>var data = '"+strings.Repeat("x", 1000)+"';</script>\n", 5<<10) + "</body></html>"
	tests := []struct{ name, page string }{
		{"text-heavy", realisticPage(5<<20, 0)},
		{"script-heavy", scripts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			big := []byte(tt.page)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			s, err := Extract(big, "text/html", "")
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes of page: %d bytes allocated, %d of text", len(big), alloc, len(s.Text))
			if alloc > uint64(len(big)) {
				t.Errorf("extracting %d bytes allocated %d bytes, want at most the input's size", len(big), alloc)
			}
			if len(s.Text) > DefaultMaxText {
				t.Errorf("text of %d bytes", len(s.Text))
			}
			allocs := testing.AllocsPerRun(2, func() { _, _ = Extract(big, "text/html", "") })
			t.Logf("%.0f allocations", allocs)
			if allocs > 100_000 {
				t.Errorf("%.0f allocations per 5 MB page", allocs)
			}
		})
	}
}

// A page whose article holds about a third of its text is read as it was
// read before, so that a small edit near the threshold does not switch
// between the article and the whole body and read as the page replaced.
func TestExtractKeepsMethod(t *testing.T) {
	page := func(links int) []byte {
		intro := "<p>" + strings.Repeat("These are the sites I visit every day, and so should you. ", 7) + "</p>"
		return []byte(`<html><head><title>Links</title></head><body><div id="intro"><div><div>` + intro +
			`</div></div></div><div id="links"><span>` +
			strings.Repeat(`<a href="https://a.example/">A cat shrine</a> · <a href="https://b.example/">Dogs</a><br>`, links) +
			`</span></div></body></html>`)
	}
	tests := []struct {
		links          int
		prefer, method string
	}{
		{30, "", MethodArticle}, // the article holds about two fifths
		{30, MethodArticle, MethodArticle},
		{30, MethodBody, MethodBody}, // under half: it does not win the page back
		{50, "", MethodBody},         // under a third
		{50, MethodBody, MethodBody},
		{50, MethodArticle, MethodArticle}, // still over a sixth: kept
		{2, MethodBody, MethodArticle},     // the article is now most of the page
		{150, MethodArticle, MethodBody},   // the page has become a links page
	}
	for _, tt := range tests {
		s, err := Options{Prefer: tt.prefer}.Extract(page(tt.links), "text/html", "https://shrine.example/links.html")
		if err != nil {
			t.Fatal(err)
		}
		if s.Method != tt.method {
			t.Errorf("%d links, read before as %q: method %q, want %q", tt.links, tt.prefer, s.Method, tt.method)
		}
	}
}
