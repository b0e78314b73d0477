package sitecheck

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"tidings/fetch"
	"tidings/harvest"
)

// checkLog is what a check of a site hears while its dry-run harvest
// runs: every request, every document a source read whole and what the
// source found wrong with it, and the documents that failed validation.
// It travels with the context, so ordinary harvests, which carry none,
// pay one lookup per document.
type checkLog struct {
	mu       sync.Mutex
	fetched  []Fetch
	more     int // requests past maxCheckFetches
	docs     []harvest.Document
	seenDocs map[string]bool
	// problems are what the sources found wrong with the documents they
	// read, and the documents rejected, each once.
	problems []Problem
	seen     map[Problem]bool
}

// Bounds of what one check keeps, whatever the site serves.
const (
	maxCheckFetches  = 300
	maxCheckDocs     = 500
	maxCheckProblems = 500
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

// Read records a document a source read whole; once per URL.
func (l *checkLog) Read(doc harvest.Document) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seenDocs[doc.URL] || len(l.docs) >= maxCheckDocs {
		return
	}
	if l.seenDocs == nil {
		l.seenDocs = map[string]bool{}
	}
	l.seenDocs[doc.URL] = true
	l.docs = append(l.docs, doc)
}

// doc returns the document read at u.
func (l *checkLog) doc(u string) (harvest.Document, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range l.docs {
		if d.URL == u {
			return d, true
		}
	}
	return harvest.Document{}, false
}

// Found records what a source found wrong with a document it read.
func (l *checkLog) Found(f harvest.Finding) {
	if f.IsProblem() {
		l.add(problemOf(f))
	}
}

// Rejected records a document that failed validation during a check, in
// the words of its source when it has them (harvest.Explainer).
func (l *checkLog) Rejected(source, role, u string, err error) {
	p := Problem{Code: CodeCollectionFailed, Doc: u, Blocking: true, Problem: fmt.Sprintf("the %s is not valid: %s", role, err),
		Fix: "Correct it so that it follows its specification; until it does, tidings cannot follow it."}
	if what, fix, ok := harvest.Explain(source, err); ok {
		p.Problem, p.Fix = what, fix
	}
	l.add(p)
}

func (l *checkLog) add(p Problem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[p] || len(l.problems) >= maxCheckProblems {
		return
	}
	if l.seen == nil {
		l.seen = map[Problem]bool{}
	}
	l.seen[p] = true
	l.problems = append(l.problems, p)
}

// problemOf is a source's finding as the check shows it.
func problemOf(f harvest.Finding) Problem {
	return Problem{Code: f.Code, Doc: f.Document, Where: f.Where, Problem: f.Message, Fix: f.Fix, Blocking: f.Blocking}
}
