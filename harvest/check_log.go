package harvest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"tidings/arc"
	"tidings/fetch"
	"tidings/rsync"
	"tidings/scpbridge"
)

// checkLog is what a check of a site hears while its dry-run harvest
// runs: every request, every ResourceSync document parsed, and the SCP
// and ARC documents that failed validation. It travels with the context,
// so ordinary harvests, which carry none, pay one lookup per document.
type checkLog struct {
	mu       sync.Mutex
	fetched  []CheckFetch
	more     int // requests past maxCheckFetches
	docs     []checkedDoc
	seenDocs map[string]bool
	invalid  []CheckProblem
}

// checkedDoc is what a check keeps of one ResourceSync document.
type checkedDoc struct {
	url, capability string
	findings        []rsync.Finding
	newest          *CheckEntry
}

// Bounds of what one check keeps, whatever the site serves.
const (
	maxCheckFetches = 300
	maxCheckDocs    = 500
	maxCheckInvalid = 50
)

type checkLogKey struct{}

func withCheckLog(ctx context.Context, l *checkLog) context.Context {
	ctx = context.WithValue(ctx, checkLogKey{}, l)
	return fetch.WithObserver(ctx, l.heard)
}

func checkLogOf(ctx context.Context) *checkLog {
	l, _ := ctx.Value(checkLogKey{}).(*checkLog)
	return l
}

// heard records one request.
func (l *checkLog) heard(f fetch.Fetched) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fetched) >= maxCheckFetches {
		l.more++
		return
	}
	l.fetched = append(l.fetched, CheckFetch{URL: f.URL, Status: f.Status, OK: f.Err == nil, Outcome: outcome(f)})
}

// fetches returns the requests heard so far, and how many more were
// heard than kept.
func (l *checkLog) fetches() ([]CheckFetch, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.fetched), l.more
}

func (l *checkLog) fetchList() []CheckFetch {
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

// noteDoc records a ResourceSync document parsed during a check; once per
// URL.
func noteDoc(ctx context.Context, d *rsync.Document) {
	l := checkLogOf(ctx)
	if l == nil || d == nil {
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
	if d.Newest != nil {
		cd.newest = &CheckEntry{URL: d.NewestLoc, At: *d.Newest}
	}
	l.docs = append(l.docs, cd)
}

// noteInvalid records a document that failed validation during a check.
func (l *checkLog) noteInvalid(p CheckProblem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.invalid) < maxCheckInvalid {
		l.invalid = append(l.invalid, p)
	}
}

// noteSCPRejected records an SCP file rejected during a check, with the
// line that made it invalid.
func noteSCPRejected(ctx context.Context, role, u string, err error) {
	l := checkLogOf(ctx)
	if l == nil {
		return
	}
	p := CheckProblem{Code: CheckSCPInvalid, Doc: u, Blocking: true, Problem: fmt.Sprintf("the SCP %s is not valid: %s", role, err)}
	var se *scpbridge.Error
	if errors.As(err, &se) {
		p.Problem = fmt.Sprintf("the SCP %s is not valid: %s", role, se.Msg)
		if se.Line > 0 {
			p.Where = fmt.Sprintf("line %d", se.Line)
		}
	}
	p.Fix = "Correct it (and whatever writes it) so that every line is a page as the SCP specification describes; tidings rejects the whole file until then, and none of its changes reach the feed."
	l.noteInvalid(p)
}

// noteARCInvalid records a document offered as an ARC sitemap that failed
// validation during a check.
func noteARCInvalid(ctx context.Context, u string, err error) {
	l := checkLogOf(ctx)
	if l == nil || !arcCandidate(u) {
		// Any page is tried as a pasted ARC sitemap; only a document
		// where one is looked for, or named like one, was meant as one.
		return
	}
	p := CheckProblem{Code: CheckARCInvalid, Doc: u, Blocking: true, Problem: "the ARC sitemap is not valid: " + trimARC(err)}
	var ae *arc.Error
	if errors.As(err, &ae) {
		p.Problem = "the ARC sitemap is not valid: " + ae.Msg
		if ae.Line > 0 {
			p.Where = fmt.Sprintf("line %d", ae.Line)
		}
	}
	p.Fix = "Correct it so that it validates against the ARC sitemap schema (Appendix E); until it does, tidings cannot follow it."
	l.noteInvalid(p)
}
