package sitecheck

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"tidings/harvest/arc"
	"tidings/harvest/resourcesync"

	arcdoc "tidings/arc"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/harvest/scp"
	"tidings/rsync"
	"tidings/scpbridge"
)

// checkLog is what a check of a site hears while its dry-run harvest
// runs: every request, every ResourceSync document parsed, and the SCP
// and ARC documents that failed validation. It travels with the context,
// so ordinary harvests, which carry none, pay one lookup per document.
type checkLog struct {
	mu       sync.Mutex
	fetched  []Fetch
	more     int // requests past maxCheckFetches
	docs     []checkedDoc
	seenDocs map[string]bool
	invalid  []Problem
}

// checkedDoc is what a check keeps of one ResourceSync document.
type checkedDoc struct {
	url, capability string
	findings        []rsync.Finding
	newest          *Entry
	// lists are the capabilities of the documents a Source Description or
	// capability list names; resourceList is the first resource list a
	// capability list names, which the check reads to count the pages.
	lists        []string
	resourceList string
}

// Bounds of what one check keeps, whatever the site serves.
const (
	maxCheckFetches = 300
	maxCheckDocs    = 500
	maxCheckInvalid = 50
)

// attach returns a context whose requests and harvests l hears.
func (l *checkLog) attach(ctx context.Context) context.Context {
	return fetch.WithObserver(harvest.WithNotes(ctx, l), l.heard)
}

// heard records one request.
func (l *checkLog) heard(f fetch.Fetched) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fetched) >= maxCheckFetches {
		l.more++
		return
	}
	l.fetched = append(l.fetched, Fetch{URL: f.URL, Status: f.Status, OK: f.Err == nil, Outcome: outcome(f)})
}

// fetches returns the requests heard so far, and how many more were
// heard than kept.
func (l *checkLog) fetches() ([]Fetch, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.fetched), l.more
}

func (l *checkLog) fetchList() []Fetch {
	f, _ := l.fetches()
	return f
}

// outcome says what became of a request, without repeating its URL.
func outcome(f fetch.Fetched) string {
	var fe *fetch.FetchError
	switch {
	case errors.As(f.Err, &fe):
		return fe.Reason
	case f.Err != nil:
		return f.Err.Error()
	case f.NotModified:
		return "304 Not Modified"
	case f.Bytes > 0:
		return fmt.Sprintf("%d %s, %s", f.Status, http.StatusText(f.Status), fetch.SizeString(f.Bytes))
	}
	return fmt.Sprintf("%d %s", f.Status, http.StatusText(f.Status))
}

// Parsed records a ResourceSync document parsed during a check; once per
// URL. The check reads no other source's documents whole.
func (l *checkLog) Parsed(source string, doc any) {
	d, ok := doc.(*rsync.Document)
	if source != resourcesync.Name || !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seenDocs[d.URL] || len(l.docs) >= maxCheckDocs {
		return
	}
	if l.seenDocs == nil {
		l.seenDocs = map[string]bool{}
	}
	l.seenDocs[d.URL] = true
	cd := checkedDoc{url: d.URL, capability: d.Capability, findings: d.Findings}
	for _, e := range d.Entries {
		if len(cd.lists) < maxCheckDocs {
			cd.lists = append(cd.lists, e.Capability)
		}
		if e.Capability == rsync.CapResourceList && cd.resourceList == "" && d.Capability == rsync.CapCapabilityList {
			cd.resourceList = e.Loc
		}
	}
	if d.Newest != nil {
		cd.newest = &Entry{URL: d.NewestLoc, At: *d.Newest}
	}
	l.docs = append(l.docs, cd)
}

// Rejected records a document that failed validation during a check,
// with the line that made it invalid when its parser says.
func (l *checkLog) Rejected(source, role, u string, err error) {
	var p Problem
	switch source {
	case scp.Name:
		p = scpRejected(role, u, err)
	case arc.Name:
		p = arcRejected(u, err)
	default:
		p = Problem{Code: CodeCollectionFailed, Doc: u, Blocking: true, Problem: fmt.Sprintf("the %s is not valid: %s", role, err),
			Fix: "Correct it so that it follows its specification; until it does, tidings cannot follow it."}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.invalid) < maxCheckInvalid {
		l.invalid = append(l.invalid, p)
	}
}

func scpRejected(role, u string, err error) Problem {
	p := Problem{Code: CodeSCPInvalid, Doc: u, Blocking: true, Problem: fmt.Sprintf("the SCP %s is not valid: %s", role, err)}
	var se *scpbridge.Error
	if errors.As(err, &se) {
		p.Problem = fmt.Sprintf("the SCP %s is not valid: %s", role, se.Msg)
		if se.Line > 0 {
			p.Where = fmt.Sprintf("line %d", se.Line)
		}
	}
	p.Fix = "Correct it (and whatever writes it) so that every line is a page as the SCP specification describes; tidings rejects the whole file until then, and none of its changes reach the feed."
	return p
}

func arcRejected(u string, err error) Problem {
	p := Problem{Code: CodeARCInvalid, Doc: u, Blocking: true, Problem: "the ARC sitemap is not valid: " + strings.TrimPrefix(err.Error(), "arc: ")}
	var ae *arcdoc.Error
	if errors.As(err, &ae) {
		p.Problem = "the ARC sitemap is not valid: " + ae.Msg
		if ae.Line > 0 {
			p.Where = fmt.Sprintf("line %d", ae.Line)
		}
	}
	p.Fix = "Correct it so that it validates against the ARC sitemap schema (Appendix E); until it does, tidings cannot follow it."
	return p
}
