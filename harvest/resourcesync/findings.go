package resourcesync

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tidings/harvest"
	"tidings/rsync"
)

// Codes of the findings the ResourceSync source reports, stable for
// scripts: each names a way a document departs from what IFCC-0001 asks
// of its authors (see rsync.Finding).
const (
	CodeNoUp          = rsync.FindNoUp
	CodeNoDescribes   = rsync.FindNoDescribes
	CodeNoDatetime    = rsync.FindNoDatetime
	CodeNoChange      = rsync.FindNoChange
	CodeUnknownChange = rsync.FindUnknownChange
	CodeBadDatetime   = rsync.FindBadDatetime
	CodeNoFrom        = rsync.FindNoFrom
)

// note tells the site check, when one listens, what the document d is and
// what its owner should fix in it; listed counts the entries of a list
// that went to an each func rather than d.Entries.
func (r docs) note(ctx context.Context, d *rsync.Document, listed int) {
	if !harvest.Noting(ctx) || d.Capability == "" {
		// A document of no capability (a plain sitemap that robots.txt
		// named) is no ResourceSync document: its rejection says so, and
		// the source that reads it says what it is.
		return
	}
	doc := harvest.Document{URL: d.URL, What: docKind(d)}
	switch {
	case d.Capability == rsync.CapResourceList && !d.IsIndex():
		doc.Lists, doc.Pages = true, listed+len(d.Entries)
		doc.What = "a resource list of " + count(doc.Pages, "page", "pages")
	case d.Capability == rsync.CapCapabilityList:
		for _, e := range d.Entries {
			if e.Capability == rsync.CapResourceList {
				doc.PageList = e.Loc
				break
			}
		}
	}
	harvest.NoteDocument(ctx, doc)
	for _, f := range d.Findings {
		if hf, ok := findingOf(d, f, r.strict); ok {
			hf.Document = d.URL
			harvest.NoteFinding(ctx, hf)
		}
	}
	if n := d.Newest; n != nil && n.After(r.now.Add(harvest.MaxClockSkew)) {
		harvest.NoteFinding(ctx, harvest.Finding{Code: harvest.CodeFutureDates, Document: d.URL, Where: "entry <" + d.NewestLoc + ">",
			Message: fmt.Sprintf("the change list has changes dated in the future: the latest, %s, on %s.", d.NewestLoc, n.UTC().Format(time.RFC3339)),
			Fix: "Date each change when it was made, and check the clock and time zone of whatever writes the list: " +
				"tidings ignores changes dated more than a day ahead, which would otherwise stay on top of the feed."})
	}
}

// warnings adds what the parser of doc warned of to the run, each
// warning about what a finding counts with that finding's code.
func warnings(r *harvest.CollectionRun, doc *rsync.Document) {
	for i, w := range doc.Warnings {
		if code := doc.WarningCodes[i]; code != "" {
			r.Find(harvest.Finding{Code: code, Document: doc.URL}, "%s", w)
		} else {
			r.Warn("%s", w)
		}
	}
}

// docKind says what a ResourceSync document is and what it points to.
func docKind(d *rsync.Document) string {
	switch d.Capability {
	case rsync.CapDescription:
		return "a ResourceSync Source Description naming " + count(len(d.Entries), "capability list", "capability lists")
	case rsync.CapCapabilityList:
		var names []string
		for _, e := range d.Entries {
			names = append(names, "a "+capabilityName(e.Capability))
		}
		if len(names) == 0 {
			return "a capability list naming nothing to harvest"
		}
		return "a capability list naming " + strings.Join(names, " and ")
	case rsync.CapChangeList:
		return "a change list"
	}
	return "a ResourceSync " + capabilityName(d.Capability)
}

// findingOf phrases one finding of a document for its owner.
func findingOf(d *rsync.Document, f rsync.Finding, strictDatetime bool) (harvest.Finding, bool) {
	switch f.Code {
	case rsync.FindNoUp:
		above := "the Source Description"
		if d.Capability == rsync.CapChangeList {
			above = "its capability list"
		}
		return harvest.Finding{Code: CodeNoUp,
			Message: fmt.Sprintf("the %s has no <rs:ln rel=\"up\"> link to %s.", capabilityName(d.Capability), above),
			Fix:     fmt.Sprintf("Add <rs:ln rel=\"up\" href=\"…\"/> naming %s: IFCC-0001 requires it, so that whoever is given this document can find what it belongs to.", above)}, true
	case rsync.FindNoDescribes:
		if f.Loc != "" {
			return harvest.Finding{Code: CodeNoDescribes, Where: entryWhere(f),
				Message: fmt.Sprintf("the Source Description's entry for the capability list %s has no <rs:ln rel=\"describes\">.", f.Loc),
				Fix:     "Add <rs:ln rel=\"describes\" href=\"…\"/> to that <url>, naming the collection's home page, as IFCC-0001 requires."}, true
		}
		return harvest.Finding{Code: CodeNoDescribes, Message: "the capability list has no <rs:ln rel=\"describes\"> naming its collection.",
			Fix: "Add <rs:ln rel=\"describes\" href=\"…\"/> naming the collection's home page: IFCC-0001 requires it, and it is the collection's identity. " +
				"Meanwhile tidings identifies the collection by the Source Description's describes link, else by the capability list's own address, so that moving the list would start a new feed."}, true
	case rsync.FindNoDatetime:
		then := "tidings dates these entries by their lastmod meanwhile (and ignores those without one)."
		if strictDatetime {
			then = "this tidings (--strict-datetime) ignores entries without it."
		}
		return harvest.Finding{Code: CodeNoDatetime, Where: entryWhere(f),
			Message: fmt.Sprintf("%s of the change list %s no datetime.", entriesWord(f.Count), hasWord(f.Count)),
			Fix:     "Add datetime=\"…\" (when the change was made, such as 2024-05-01T12:00:00Z) to each entry's rs:md: IFCC-0001 requires it, and " + then}, true
	case rsync.FindNoChange:
		return harvest.Finding{Code: CodeNoChange, Where: entryWhere(f),
			Message: fmt.Sprintf("%s of the change list %s no change attribute.", entriesWord(f.Count), hasWord(f.Count)),
			Fix:     "Add change=\"created\", \"updated\" or \"deleted\" to each entry's rs:md; tidings skips entries without it."}, true
	case rsync.FindBadDatetime:
		return harvest.Finding{Code: CodeBadDatetime, Where: entryWhere(f),
			Message: fmt.Sprintf("%s of the change list %s a datetime that is not a W3C datetime.", entriesWord(f.Count), hasWord(f.Count)),
			Fix:     "Write each datetime as a W3C datetime, such as 2024-05-01 or 2024-05-01T12:00:00Z; tidings skips these entries rather than guess when they changed."}, true
	case rsync.FindNoFrom:
		return harvest.Finding{Code: CodeNoFrom, Message: "the change list's rs:md has no from attribute.",
			Fix: "Add from=\"…\" to the change list's own rs:md, the time from which it lists changes, as IFCC-0001 requires."}, true
	case rsync.FindUnknownChange:
		return harvest.Finding{Code: CodeUnknownChange, Where: entryWhere(f),
			Message: fmt.Sprintf("%s of the change list %s change=%q, which is not a change IFCC-0001 knows.", entriesWord(f.Count), hasWord(f.Count), f.Value),
			Fix:     "Use change=\"created\", \"updated\" or \"deleted\"; tidings skips these entries."}, true
	}
	return harvest.Finding{}, false
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

// count says "1 page", "3 pages".
func count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// strictIn reports whether settings ignore entries without a datetime.
func strictIn(s any) bool {
	st, ok := s.(*Settings)
	return ok && st.StrictDatetime
}
