package harvest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"tidings/db"
	"tidings/fetch"
)

// session fetches the documents of one harvest step, conditionally where a
// previous fetch left validators, and collects the fetch state to store with
// the step's results.
type session struct {
	c           *fetch.Client
	known       map[string]db.FetchState
	documents   int
	notModified int
	retryAfter  time.Duration
	// budget, shared by the sessions of one site harvest, counts down the
	// documents it may still fetch; nil means no limit.
	budget *atomic.Int64
	states []db.FetchState
	// bodies holds what discovery read whole of the address given, by
	// URL, for the collection harvest that would fetch it again (a change
	// list given as the address to follow): one site harvest fetches a
	// document once. A harvest takes it out (CollectionRun.Given), so it
	// is held no longer than until its parse.
	bodies map[string]*fetch.Response
	// reading, shared like bodies, is what the site harvest read of its
	// pages' text.
	reading *pageReading
	// pages, shared like bodies, are the pages discovery read whole, by
	// address, which a first crawl then need not fetch again.
	pages map[string]*fetch.Response
	// passed, shared like bodies, holds what discovery passed on to the
	// harvests by key (SiteDiscovery.Pass).
	passed map[string]any
	// docTimeout bounds each document of a discovery (SiteDiscovery's
	// timed); 0 leaves the client's timeout alone.
	docTimeout time.Duration
	// follow: the session is a site's first harvest, a follow.
	follow bool
	// againIfCut are the documents whose fetch state forgetCut drops
	// (CollectionRun.ReadAgainIfCut).
	againIfCut map[string]bool
}

func newSession(c *fetch.Client, known map[string]db.FetchState) *session {
	if known == nil {
		known = map[string]db.FetchState{}
	}
	return &session{c: c, known: known}
}

// fetch gets url, conditionally when an earlier fetch left validators. On
// a 304 it returns a NotModified response and the memo stored with the
// earlier fetch. Errors are phrased for people, naming the role.
func (s *session) fetch(ctx context.Context, role, url string) (*fetch.Response, string, error) {
	prev, havePrev := s.known[url]
	var cond fetch.Conditional
	if havePrev {
		cond = fetch.Conditional{ETag: prev.ETag, LastModified: prev.LastModified}
	}
	if err := s.spend(); err != nil {
		return nil, "", err
	}
	s.documents++
	resp, err := s.c.Get(ctx, url, cond)
	if err != nil {
		s.noteRetryAfter(err)
		return nil, "", roleError(role, err)
	}
	if resp.NotModified {
		s.notModified++
		return resp, prev.Memo, nil
	}
	return resp, "", nil
}

// noteRetryAfter remembers the longest wait a site asked for (429, 503),
// which the next harvest's time honours.
func (s *session) noteRetryAfter(err error) {
	var fe *fetch.FetchError
	if errors.As(err, &fe) && fe.RetryAfter > s.retryAfter {
		s.retryAfter = fe.RetryAfter
	}
}

// keep records a response's validators, with a memo of what it said, to be
// stored with the step's results; the next fetch of the URL is then
// conditional.
func (s *session) keep(url string, resp *fetch.Response, memo string) {
	if resp.ETag == "" && resp.LastModified == "" {
		return
	}
	s.remember(url, resp, memo, "")
}

// remember records the fetch state of url, validators or not.
func (s *session) remember(url string, resp *fetch.Response, memo, digest string) {
	s.states = append(s.states, db.FetchState{
		URL: url, ETag: resp.ETag, LastModified: resp.LastModified, Memo: memo, Digest: digest, FetchedAt: time.Now(),
	})
}

// forget drops what is known of url, so the next fetch is unconditional
// (a memo that cannot be read must not wedge a collection).
func (s *session) forget(url string) { delete(s.known, url) }

// forgetCut drops the fetch state of the documents whose changes were
// cut (see ReadAgainIfCut), so that the next harvest reads them again
// rather than take them for unchanged: some of their changes wait for it.
func (s *session) forgetCut() {
	s.states = slices.DeleteFunc(s.states, func(st db.FetchState) bool { return s.againIfCut[st.URL] })
}

// roleError phrases err for people, naming the document's role when given:
// "capability list https://… returned 404 Not Found".
func roleError(role string, err error) error {
	msg := err.Error()
	var fe *fetch.FetchError
	if errors.As(err, &fe) {
		msg = fe.Error()
	}
	if role != "" {
		msg = role + " " + msg
	}
	return &Problem{Msg: msg, Err: err}
}

// Problem is an error whose message is a sentence for the site's owner or
// follower; Err keeps the chain for operators' logs.
type Problem struct {
	Msg string
	Err error
}

func (p *Problem) Error() string { return p.Msg }
func (p *Problem) Unwrap() error { return p.Err }

func problemf(format string, args ...any) error {
	return &Problem{Msg: fmt.Sprintf(format, args...)}
}

// warnings collects warnings with a cap, so that a 50,000-entry list with
// no dates yields a readable run record rather than 50,000 lines.
type warnings struct {
	list    []Warning
	dropped int
}

const maxWarnings = 20

func (w *warnings) add(format string, args ...any) {
	w.addFinding(Finding{}, fmt.Sprintf(format, args...))
}

func (w *warnings) addFinding(f Finding, text string) {
	if len(w.list) >= maxWarnings {
		w.dropped++
		return
	}
	w.list = append(w.list, Warning{Text: text, Finding: f})
}

// all are the warnings as the run's record says them.
func (w *warnings) all() []string {
	var out []string
	for _, x := range w.typed() {
		out = append(out, x.Text)
	}
	return out
}

// typed are the warnings with their findings, the count of those past
// the cap last.
func (w *warnings) typed() []Warning {
	if w.dropped == 0 {
		return w.list
	}
	return append(w.list[:len(w.list):len(w.list)], Warning{Text: fmt.Sprintf("… and %d more warnings", w.dropped)})
}

func (w *warnings) count() int { return len(w.list) + w.dropped }

// errBudget ends a site harvest that reached its document limit: an index
// pointing at thousands of lists must not keep tidings busy for hours.
var errBudget = errors.New("harvest: document limit reached")

// spend takes one document from the site harvest's budget.
func (s *session) spend() error {
	if s.budget == nil || s.budget.Add(-1) >= 0 {
		return nil
	}
	return &Problem{Msg: "tidings stopped reading this site: it reached the limit of documents one harvest may fetch (--max-documents)", Err: errBudget}
}
