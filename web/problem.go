package web

import (
	"slices"
	"strings"
)

// problem is a failure as a person meets it: one sentence saying what
// went wrong and what to do, and the attempts behind it, one a line,
// for whoever wants them.
type problem struct {
	Headline string
	Details  []string
}

// triedSep is how discovery lists what it tried after what it concluded.
const triedSep = "; tried: "

// newProblem splits a stored failure message into its conclusion and the
// attempts behind it, and says what to do.
func newProblem(msg string) problem {
	head, tried, ok := strings.Cut(msg, triedSep)
	p := problem{Headline: sentence(head)}
	if ok {
		// Several sources probe the same address (the home page); one
		// line is enough.
		for _, t := range strings.Split(tried, "; ") {
			if t = strings.TrimSpace(t); t != "" && !slices.Contains(p.Details, t) {
				p.Details = append(p.Details, t)
			}
		}
	}
	if strings.HasPrefix(head, "no change information") {
		p.Headline = "tidings found no change information on this site: check that the address is right, or ask the site's owner to publish a change list."
	}
	return p
}

// sentence makes a message from a Go error read as a sentence.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	s = capitalize(s)
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
