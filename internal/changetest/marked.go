package changetest

import (
	"regexp"
	"strings"

	"tidings/pagetext"
)

// Marked is what a reader can tell of a diff from its words alone, once
// every tag and style is gone: the removed lines, the added lines, and
// the lines with no mark, in the order read.
type Marked struct {
	Removed, Added, Plain []string
}

// inline matches one change within a line, as FeedHTML words it.
var inline = regexp.MustCompile(`\[(?:` + regexp.QuoteMeta(pagetext.RemovedWords) + `(.*?)|` +
	regexp.QuoteMeta(pagetext.AddedWords) + `(.*?)|(.*?)` + regexp.QuoteMeta(pagetext.ChangeArrow) + `(.*?))\]`)

// ReadMarked reads plain text, one paragraph a line, as a person would:
// "Removed: x" and "Added: y" lines, and lines with changes in brackets,
// which stand for the line before ("[old → new]" read as old,
// "[added: …]" as nothing) and the line after. Any other line is Plain.
func ReadMarked(text string) Marked {
	var m Marked
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, strings.TrimSpace(pagetext.RemovedLabel)):
			m.Removed = append(m.Removed, strings.TrimSpace(strings.TrimPrefix(line, strings.TrimSpace(pagetext.RemovedLabel))))
		case strings.HasPrefix(line, strings.TrimSpace(pagetext.AddedLabel)):
			m.Added = append(m.Added, strings.TrimSpace(strings.TrimPrefix(line, strings.TrimSpace(pagetext.AddedLabel))))
		case inline.MatchString(line):
			m.Removed = append(m.Removed, side(line, false))
			m.Added = append(m.Added, side(line, true))
		default:
			m.Plain = append(m.Plain, line)
		}
	}
	return m
}

// side is a line with in-line changes read as it was (now false) or is.
func side(line string, now bool) string {
	return inline.ReplaceAllStringFunc(line, func(s string) string {
		g := inline.FindStringSubmatch(s)
		switch {
		case strings.HasPrefix(s, "["+pagetext.RemovedWords):
			if now {
				return ""
			}
			return g[1]
		case strings.HasPrefix(s, "["+pagetext.AddedWords):
			if now {
				return g[2]
			}
			return ""
		case now:
			return g[4]
		}
		return g[3]
	})
}

// Squash drops whitespace, so that lines compare as a reader sees them:
// a change's own spaces stand outside its brackets, and renderers wrap
// and indent.
func Squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}
