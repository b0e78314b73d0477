package sitecheck

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/source"
)

// Codes of the problems the check itself names; the sources name theirs
// (harvest.Finding), each stable for scripts and tests.
const (
	CodeNothingFound     = "nothing-found"
	CodeCollectionFailed = "collection-failed"
	CodeRobots           = "robots-disallowed"
	CodePagesOnly        = "no-change-information"
	CodeNoHTTPS          = "no-https"
)

// triedSep is how discovery lists what it tried after what it concluded;
// the report lists those attempts apart (Report.Tried).
const triedSep = "; tried: "

// nothingFound is the problem of a site where discovery found nothing to
// follow; fetched says what answered. It is one sentence: the attempts
// behind it are the report's Tried.
func nothingFound(err error, fetched []Fetch) Problem {
	head, _, _ := strings.Cut(err.Error(), triedSep)
	p := Problem{Code: CodeNothingFound, Blocking: true, Problem: sentence(head),
		Fix: "Publish a ResourceSync Source Description at /.well-known/resourcesync (IFCC-0001; tidings publish writes one for a static site), " +
			"or an SCP sitemap, or an ARC sitemap, where the places above are looked at."}
	var ae *fetch.AddressError
	answered := slices.ContainsFunc(fetched, func(f Fetch) bool { return f.Status != 0 })
	allGone := len(fetched) > 0 && !slices.ContainsFunc(fetched, func(f Fetch) bool { return f.Status != http.StatusNotFound })
	_, robots := robotsProblem(fetched)
	switch {
	case allGone:
		p.Fix = "Check the address: every document tidings asked for answered 404 Not Found. If it is right, " +
			"publish a ResourceSync Source Description at /.well-known/resourcesync (IFCC-0001; tidings publish writes one for a static site)."
	case robots:
		p.Fix = "Let tidings read the change information: the site's robots.txt forbids it (see " + CodeRobots + ")."
	case errors.As(err, &ae):
		p.Problem = fmt.Sprintf("the site's address leads to %s, %s, which tidings does not fetch from.", ae.Address, ae.Kind)
		p.Fix = "Give the site's public address."
	case !answered:
		p.Fix = "Check that the address is right and that the site answers; tidings could not reach it."
	}
	return p
}

// judge names the problems, sorts the warnings no rule explains, and
// says whether the site can be followed.
func judge(rep *Report, log *checkLog, srep *harvest.SiteReport) {
	log.mu.Lock()
	found := slices.Clone(log.problems)
	log.mu.Unlock()
	rep.Problems = append(rep.Problems, found...)
	if p, ok := robotsProblem(rep.Fetched); ok {
		rep.Problems = append(rep.Problems, p)
	}
	ok := 0
	for _, c := range rep.Collections {
		if c.Error == "" {
			ok++
		} else if !namesInvalid(c.Error, found) {
			rep.Problems = append(rep.Problems, failedProblem(c))
		}
	}
	if srep != nil {
		sortWarnings(rep, srep)
	}
	if p, found := pagesOnly(rep); found && ok > 0 {
		rep.Problems = append(rep.Problems, p)
	}
	slices.SortStableFunc(rep.Problems, func(a, b Problem) int {
		switch {
		case a.Blocking == b.Blocking:
			return 0
		case a.Blocking:
			return -1
		}
		return 1
	})
	rep.Followable = ok > 0
	rep.Verdict = verdict(rep)
}

// sortWarnings turns the warnings of discovery and the harvest that a
// rule reads into problems, drops those a problem already says, and keeps
// the rest as they are.
func sortWarnings(rep *Report, srep *harvest.SiteReport) {
	warned := slices.Clone(srep.Warned)
	for _, cr := range srep.Collections {
		warned = append(warned, cr.Warned...)
	}
	for _, w := range warned {
		switch {
		case w.IsProblem():
			if p := problemOf(w.Finding); !slices.Contains(rep.Problems, p) {
				rep.Problems = append(rep.Problems, p)
			}
		case !explained(w, rep.Problems):
			rep.Warnings = append(rep.Warnings, w.Text)
		}
	}
}

// failedProblem is the problem of a collection whose harvest failed, in
// the words of its source when it has them (harvest.Explainer).
func failedProblem(c Collection) Problem {
	p := Problem{Code: CodeCollectionFailed, Doc: c.Source, Blocking: true,
		Problem: c.Error, Fix: "Until this is fixed, tidings cannot harvest the collection " + c.Title + "."}
	if what, fix, ok := harvest.Explain(c.Protocol, c.failure); ok {
		p.Problem, p.Fix = what, fix
	}
	return p
}

func verdict(rep *Report) string {
	cols := fmt.Sprintf("%d %s", len(rep.Collections), plural(len(rep.Collections), "collection", "collections"))
	switch {
	case !rep.Followable && len(rep.Collections) == 1:
		return "tidings cannot follow this site: " + strings.TrimSuffix(rep.Collections[0].Error, ".") + "."
	case !rep.Followable && len(rep.Collections) > 0:
		return fmt.Sprintf("tidings cannot follow this site: none of its %d collections could be harvested; the first says: %s.",
			len(rep.Collections), strings.TrimSuffix(rep.Collections[0].Error, "."))
	case !rep.Followable && len(rep.Problems) > 0:
		return "tidings cannot follow this site: " + rep.Problems[0].Problem
	case !rep.Followable:
		return "tidings cannot follow this site: it found no change information."
	case len(rep.Problems) > 0:
		return fmt.Sprintf("tidings can follow this site (%s), but it has %d %s to fix.",
			cols, len(rep.Problems), plural(len(rep.Problems), "problem", "problems"))
	}
	return fmt.Sprintf("tidings can follow this site (%s), and found nothing to fix.", cols)
}

// sentence ends a message with a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// noHTTPS is a site that answers over http only, checked there because
// its address was given without a scheme.
func noHTTPS(r follow.Reached) Problem {
	return Problem{Code: CodeNoHTTPS, Doc: r.Tried,
		Problem: fmt.Sprintf("the site does not answer over https: at %s, %s; it answered at %s, where it was checked.", r.Tried, r.Why, r.Address.Root),
		Fix: "Serve the site over https too. An address given without its scheme is tried over https first, and people who give yours so " +
			"reach the site only because tidings then tries http."}
}

// pagesOnly is the advice for a site that publishes no change
// information: tidings can watch its pages, at the cost of reading them
// at every harvest, and sees their changes late and without dates.
func pagesOnly(rep *Report) (Problem, bool) {
	if len(rep.Collections) == 0 {
		return Problem{}, false
	}
	for _, c := range rep.Collections {
		if i, ok := source.Lookup(c.Protocol); !ok || i.Tier < 2 {
			return Problem{}, false
		}
	}
	return Problem{Code: CodePagesOnly, Doc: rep.Site,
		Problem: "the site publishes no change information: tidings would watch its pages, reading them again at every harvest, and learn of a change only then.",
		Fix: "Publish your site's changes: for a static site, tidings publish writes a ResourceSync change list into its folder (see \"Publish your site's changes\" in the site owners' guide); " +
			"a sitemap.xml giving each page's lastmod also lets tidings see what changed without reading every page."}, true
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// robotsProblem names the documents the site's robots.txt kept tidings
// from, in one problem.
func robotsProblem(fetched []Fetch) (Problem, bool) {
	var first string
	n := 0
	for _, f := range fetched {
		if !f.OK && strings.Contains(f.Outcome, "by the site's robots.txt") {
			if n == 0 {
				first = f.URL
			}
			n++
		}
	}
	if n == 0 {
		return Problem{}, false
	}
	return Problem{Code: CodeRobots, Doc: first, Blocking: true,
		Problem: fmt.Sprintf("the site's robots.txt keeps tidings from %s (the first is named here).", plural(n, "1 document", fmt.Sprintf("%d documents", n))),
		Fix:     "Allow the user agent tidings to fetch the change information in robots.txt (an Allow: line for its path); tidings obeys robots.txt."}, true
}

// explained reports whether a problem already named says what the
// warning w says: one of the code its source gave it.
func explained(w harvest.Warning, problems []Problem) bool {
	return w.Code != "" && slices.ContainsFunc(problems, func(p Problem) bool { return p.Code == w.Code })
}

// namesInvalid reports whether a collection's error is about a document
// already named as one tidings cannot follow.
func namesInvalid(msg string, found []Problem) bool {
	for _, p := range found {
		if p.Blocking && p.Doc != "" && strings.Contains(msg, p.Doc) {
			return true
		}
	}
	return false
}
