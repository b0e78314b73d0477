package feeds

import (
	"strings"

	"golang.org/x/net/html"
)

// blockTags end a line of plain text: the block elements contentPolicy
// lets through.
var blockTags = map[string]bool{"p": true, "li": true, "ul": true, "ol": true, "br": true}

// plainText renders sanitized entry content as plain text, as a browser
// would lay it out without styles: one line per paragraph or list item
// (items led by "- "), whitespace collapsed, entities decoded, tags gone.
// Whatever the content says in words (such as a diff's "Removed:") stays;
// what only its markup said is lost, which is why the content says it in
// words too.
func plainText(content string) string {
	var lines []string
	var line strings.Builder
	space := func() {
		if b := line.String(); b != "" && !strings.HasSuffix(b, " ") {
			line.WriteByte(' ')
		}
	}
	end := func() {
		if s := strings.TrimSpace(line.String()); s != "" {
			lines = append(lines, s)
		}
		line.Reset()
	}
	z := html.NewTokenizer(strings.NewReader(content))
	for {
		switch z.Next() {
		case html.ErrorToken:
			end()
			return strings.Join(lines, "\n")
		case html.TextToken:
			text := string(z.Text())
			words := strings.Fields(text)
			if len(words) == 0 || startsSpace(text) {
				space()
			}
			line.WriteString(strings.Join(words, " "))
			if len(words) > 0 && endsSpace(text) {
				space()
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			if blockTags[string(name)] {
				end()
				if string(name) == "li" {
					line.WriteString("- ")
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); blockTags[string(name)] {
				end()
			}
		}
	}
}

func startsSpace(s string) bool { return s != strings.TrimLeft(s, " \t\n\r\f") }

func endsSpace(s string) bool { return s != strings.TrimRight(s, " \t\n\r\f") }

// PlainText is content as a reader without HTML shows it (the JSON
// Feed's content_text): what the markup said only in tags is lost, what
// it says in words stays.
func PlainText(content string) string { return plainText(content) }
