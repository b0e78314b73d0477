package sitecheck

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"tidings/harvest/sitemap"

	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/harvest/listed"
	"tidings/rsync"
	"tidings/source"
)

// Codes of the problems a check names.
const (
	CodeNothingFound     = "nothing-found"
	CodeCollectionFailed = "collection-failed"
	CodeNoUp             = "no-up"
	CodeNoDescribes      = "no-describes"
	CodeNoDatetime       = "no-datetime"
	CodeNoChange         = "no-change"
	CodeUnknownChange    = "unknown-change"
	CodeBadDatetime      = "bad-datetime"
	CodeNoFrom           = "no-from"
	CodeFuture           = "future-dates"
	CodeSCPInvalid       = "scp-invalid"
	CodeARCInvalid       = "arc-invalid"
	CodeARCPageInvalid   = "arc-page-invalid"
	CodeRobots           = "robots-disallowed"
	CodeBuildStamped     = "build-stamped"
	CodePagesOnly        = "no-change-information"
	CodeNoHTTPS          = "no-https"
)

// covered tells, for the codes whose problem says what a harvest warning
// says, which warnings those are: once the problem is named, with its
// fix, the warning is not repeated.
var covered = map[string]func(w string) bool{
	CodeNoDescribes: func(w string) bool { return strings.Contains(w, `rel="describes"`) },
	CodeNoDatetime: func(w string) bool {
		return strings.HasPrefix(w, "ignored ") && strings.HasSuffix(w, ": no datetime")
	},
	CodeNoChange: func(w string) bool { return strings.HasSuffix(w, ": no rs:md change attribute") },
	CodeUnknownChange: func(w string) bool {
		return strings.HasPrefix(w, "skipped ") && strings.Contains(w, ": unknown change ")
	},
	CodeFuture: func(w string) bool { return strings.Contains(w, "dated more than a day after this harvest") },
	// A broken document the site is followed beside is named by its
	// problem, with the fix.
	CodeARCInvalid: func(w string) bool {
		return strings.HasPrefix(w, "the ARC sitemap ") && strings.Contains(w, "until it can be read")
	},
	CodeBadDatetime: func(w string) bool {
		return strings.Contains(w, `: datetime "`) && strings.HasSuffix(w, " is not a W3C datetime")
	},
}

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
func judge(rep *Report, log *checkLog, srep *harvest.SiteReport, strictDatetime bool) {
	for _, d := range log.docs {
		rep.Problems = append(rep.Problems, docProblems(d, rep.Checked, strictDatetime)...)
	}
	rep.Problems = append(rep.Problems, log.invalid...)
	if p, ok := robotsProblem(rep.Fetched); ok {
		rep.Problems = append(rep.Problems, p)
	}
	ok := 0
	for _, c := range rep.Collections {
		if c.Error == "" {
			ok++
		} else if !namesInvalid(c.Error, log.invalid) {
			rep.Problems = append(rep.Problems, Problem{Code: CodeCollectionFailed, Doc: c.Source, Blocking: true,
				Problem: c.Error, Fix: "Until this is fixed, tidings cannot harvest the collection " + c.Title + "."})
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
	warnings := slices.Clone(srep.Run.Warnings)
	for _, cr := range srep.Collections {
		warnings = append(warnings, cr.Run.Warnings...)
	}
	for _, w := range warnings {
		if p, ok := arcPageProblem(w); ok {
			rep.Problems = append(rep.Problems, p)
		} else if w == listed.StampWarning {
			rep.Problems = append(rep.Problems, stampProblem(rep))
		} else if !explained(w, rep.Problems) {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
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

// explained reports whether a problem already named says what w says.
func explained(w string, problems []Problem) bool {
	for _, p := range problems {
		if match, ok := covered[p.Code]; ok && match(w) {
			return true
		}
	}
	return false
}

// namesInvalid reports whether a collection's error is about a document
// already named as invalid.
func namesInvalid(msg string, invalid []Problem) bool {
	for _, p := range invalid {
		if strings.Contains(msg, p.Doc) {
			return true
		}
	}
	return false
}

// stampProblem is a sitemap whose every lastmod is the build time: it
// still works, at the cost of reading every page to confirm a change.
func stampProblem(rep *Report) Problem {
	var doc string
	for _, c := range rep.Collections {
		if c.Protocol == sitemap.Name {
			doc = c.Source
			break
		}
	}
	return Problem{Code: CodeBuildStamped, Doc: doc,
		Problem: "the sitemap's lastmod is the build time on (nearly) every page, so it cannot say which pages changed",
		Fix: "Give each <url> the date its page's content last changed, or leave lastmod out; better, publish a ResourceSync change list " +
			"(tidings publish writes one). Meanwhile tidings reads the pages to confirm each change."}
}

// arcPageProblem turns the warning about an invalid ARC page entry ("in
// <sitemap>, page 3 (<url>) lacks …; it was skipped") into a problem.
func arcPageProblem(w string) (Problem, bool) {
	body, ok := strings.CutPrefix(w, "in ")
	if !ok {
		return Problem{}, false
	}
	body, ok = strings.CutSuffix(body, "; it was skipped")
	doc, entry, found := strings.Cut(body, ", page ")
	var n int
	if !ok || !found || doc == "" {
		return Problem{}, false
	}
	if _, err := fmt.Sscanf(entry, "%d", &n); err != nil {
		return Problem{}, false
	}
	return Problem{Code: CodeARCPageInvalid, Doc: doc, Where: fmt.Sprintf("page %d", n),
		Problem: "the page entry is not valid: page " + entry,
		Fix:     "Correct the entry so that it validates against the ARC sitemap schema; tidings skips it until then."}, true
}

// docProblems are the problems of one ResourceSync document.
func docProblems(d checkedDoc, now time.Time, strictDatetime bool) []Problem {
	var out []Problem
	for _, f := range d.findings {
		if p, ok := findingProblem(d, f, strictDatetime); ok {
			p.Doc = d.url
			out = append(out, p)
		}
	}
	if n := d.newest; n != nil && n.At.After(now.Add(harvest.MaxClockSkew)) {
		out = append(out, Problem{Code: CodeFuture, Doc: d.url, Where: "entry <" + n.URL + ">",
			Problem: fmt.Sprintf("the change list has changes dated in the future: the latest, %s, on %s.", n.URL, n.At.UTC().Format(time.RFC3339)),
			Fix: "Date each change when it was made, and check the clock and time zone of whatever writes the list: " +
				"tidings ignores changes dated more than a day ahead, which would otherwise stay on top of the feed."})
	}
	return out
}

// findingProblem phrases one finding of a document for its owner.
func findingProblem(d checkedDoc, f rsync.Finding, strictDatetime bool) (Problem, bool) {
	switch f.Code {
	case rsync.FindNoUp:
		above := "the Source Description"
		if d.capability == rsync.CapChangeList {
			above = "its capability list"
		}
		return Problem{Code: CodeNoUp,
			Problem: fmt.Sprintf("the %s has no <rs:ln rel=\"up\"> link to %s.", capabilityName(d.capability), above),
			Fix:     fmt.Sprintf("Add <rs:ln rel=\"up\" href=\"…\"/> naming %s: IFCC-0001 requires it, so that whoever is given this document can find what it belongs to.", above)}, true
	case rsync.FindNoDescribes:
		if f.Loc != "" {
			return Problem{Code: CodeNoDescribes, Where: entryWhere(f),
				Problem: fmt.Sprintf("the Source Description's entry for the capability list %s has no <rs:ln rel=\"describes\">.", f.Loc),
				Fix:     "Add <rs:ln rel=\"describes\" href=\"…\"/> to that <url>, naming the collection's home page, as IFCC-0001 requires."}, true
		}
		return Problem{Code: CodeNoDescribes, Problem: "the capability list has no <rs:ln rel=\"describes\"> naming its collection.",
			Fix: "Add <rs:ln rel=\"describes\" href=\"…\"/> naming the collection's home page: IFCC-0001 requires it, and it is the collection's identity. " +
				"Meanwhile tidings identifies the collection by the Source Description's describes link, else by the capability list's own address, so that moving the list would start a new feed."}, true
	case rsync.FindNoDatetime:
		then := "tidings dates these entries by their lastmod meanwhile (and ignores those without one)."
		if strictDatetime {
			then = "this tidings (--strict-datetime) ignores entries without it."
		}
		return Problem{Code: CodeNoDatetime, Where: entryWhere(f),
			Problem: fmt.Sprintf("%s of the change list %s no datetime.", entriesWord(f.Count), hasWord(f.Count)),
			Fix:     "Add datetime=\"…\" (when the change was made, such as 2024-05-01T12:00:00Z) to each entry's rs:md: IFCC-0001 requires it, and " + then}, true
	case rsync.FindNoChange:
		return Problem{Code: CodeNoChange, Where: entryWhere(f),
			Problem: fmt.Sprintf("%s of the change list %s no change attribute.", entriesWord(f.Count), hasWord(f.Count)),
			Fix:     "Add change=\"created\", \"updated\" or \"deleted\" to each entry's rs:md; tidings skips entries without it."}, true
	case rsync.FindBadDatetime:
		return Problem{Code: CodeBadDatetime, Where: entryWhere(f),
			Problem: fmt.Sprintf("%s of the change list %s a datetime that is not a W3C datetime.", entriesWord(f.Count), hasWord(f.Count)),
			Fix:     "Write each datetime as a W3C datetime, such as 2024-05-01 or 2024-05-01T12:00:00Z; tidings skips these entries rather than guess when they changed."}, true
	case rsync.FindNoFrom:
		return Problem{Code: CodeNoFrom, Problem: "the change list's rs:md has no from attribute.",
			Fix: "Add from=\"…\" to the change list's own rs:md, the time from which it lists changes, as IFCC-0001 requires."}, true
	case rsync.FindUnknownChange:
		return Problem{Code: CodeUnknownChange, Where: entryWhere(f),
			Problem: fmt.Sprintf("%s of the change list %s change=%q, which is not a change IFCC-0001 knows.", entriesWord(f.Count), hasWord(f.Count), f.Value),
			Fix:     "Use change=\"created\", \"updated\" or \"deleted\"; tidings skips these entries."}, true
	}
	return Problem{}, false
}

func capabilityName(c string) string {
	switch c {
	case rsync.CapChangeList:
		return "change list"
	case rsync.CapCapabilityList:
		return "capability list"
	case rsync.CapResourceList:
		return "resource list"
	case rsync.CapDescription:
		return "Source Description"
	}
	return c
}

func entryWhere(f rsync.Finding) string {
	s := fmt.Sprintf("entry %d <%s>", f.Entry, f.Loc)
	if f.Line > 0 {
		s += fmt.Sprintf(" on line %d", f.Line)
	}
	if f.Count > 1 {
		s = "from " + s
	}
	return s
}

func entriesWord(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

func hasWord(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}
