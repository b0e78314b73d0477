package harvest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/rsync"
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
	// read holds the documents discovery read for the collection harvests
	// that follow (a capability list it had to look into), so that one site
	// harvest fetches a document once.
	read map[string]*rsync.Document
	// bodies holds, the same way, documents discovery read whole that
	// no parser keeps (a plain sitemap), by URL.
	bodies map[string]*fetch.Response
	// shots, shared like read, is what the site harvest read of its
	// pages' text.
	shots *pageShots
	// pages, shared like read, are the pages discovery read whole, by
	// address, which a first crawl then need not fetch again.
	pages map[string]*fetch.Response
	// passed, shared like read, holds what discovery passed on to the
	// harvests by key (SiteDiscovery.Pass).
	passed map[string]any
	// changeLists are the change lists read whole in this session, whose
	// fetch state forgetChangeLists can drop.
	changeLists map[string]bool
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

// doc fetches and parses a ResourceSync document. When the document has
// not changed, answered 304 or served again byte for byte, it returns the
// document remembered from the previous fetch, or nil when nothing was
// remembered: a change list that has not changed holds nothing new.
func (s *session) doc(ctx context.Context, role, url string) (*rsync.Document, error) {
	return s.docEach(ctx, role, url, nil)
}

// docEach is doc for a document that may be a change list: the entries of
// a <urlset> read now go to each instead of the Document, so that a list
// of half a million entries is never held whole. Entries of a document
// remembered or read before are still in the Document it returns.
func (s *session) docEach(ctx context.Context, role, url string, each func(*rsync.Entry)) (*rsync.Document, error) {
	if d, ok := s.read[url]; ok {
		return d, nil
	}
	resp, memo, err := s.fetch(ctx, role, url)
	if err != nil {
		return nil, err
	}
	if resp.NotModified {
		return s.remembered(ctx, role, url, memo)
	}
	digest := bodyDigest(resp.Body)
	if prev, ok := s.known[url]; ok && prev.Digest == digest {
		// Many servers send no validators. The digest does their work and
		// spares the parse of an unchanged 50,000-entry list.
		s.remember(url, resp, prev.Memo, digest)
		return s.remembered(ctx, role, url, prev.Memo)
	}
	d, err := rsync.ParseEach(bytes.NewReader(resp.Body), url, each)
	if err != nil {
		return nil, roleError(role, err)
	}
	noteParsed(ctx, d)
	if each != nil && !d.IsIndex() {
		// Its entries are gone: it is remembered as a change list is.
		s.keepChangeList(url, resp, digest)
		return d, nil
	}
	s.keepDoc(url, resp, d, digest)
	return d, nil
}

// keepDoc keeps a ResourceSync document's validators and the digest of its
// body, with the document as memo. Change lists are not remembered:
// unchanged, they add nothing, and they are the big documents.
func (s *session) keepDoc(url string, resp *fetch.Response, d *rsync.Document, digest string) {
	memo := ""
	if d.IsIndex() || d.Capability != rsync.CapChangeList {
		if b, err := json.Marshal(d); err == nil {
			memo = string(b)
		}
		s.remember(url, resp, memo, digest)
		return
	}
	s.keepChangeList(url, resp, digest)
}

// keepChangeList keeps a change list's validators and digest, without a
// memo.
func (s *session) keepChangeList(url string, resp *fetch.Response, digest string) {
	if s.changeLists == nil {
		s.changeLists = map[string]bool{}
	}
	s.changeLists[url] = true
	s.remember(url, resp, "", digest)
}

// forgetChangeLists drops the fetch state of the change lists read whole,
// so that the next harvest reads them again rather than take them for
// unchanged: some of their changes wait for it.
func (s *session) forgetChangeLists() {
	s.states = slices.DeleteFunc(s.states, func(st db.FetchState) bool { return s.changeLists[st.URL] })
}

// bodyDigest is what fetch_state keeps of a body to recognise it again.
func bodyDigest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// remembered returns the document memo describes, or nil for a change list,
// which is not remembered.
func (s *session) remembered(ctx context.Context, role, url, memo string) (*rsync.Document, error) {
	if memo == "" {
		return nil, nil
	}
	var d rsync.Document
	if err := json.Unmarshal([]byte(memo), &d); err == nil {
		return &d, nil
	}
	// A memo that cannot be read must not wedge a collection.
	s.forget(url)
	return s.doc(ctx, role, url)
}

// roleError phrases err for people, naming the document's role when given:
// "capability list https://… returned 404 Not Found".
func roleError(role string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "rsync: ")
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
	list    []string
	dropped int
}

const maxWarnings = 20

func (w *warnings) add(format string, args ...any) {
	if len(w.list) >= maxWarnings {
		w.dropped++
		return
	}
	w.list = append(w.list, fmt.Sprintf(format, args...))
}

func (w *warnings) all() []string {
	if w.dropped == 0 {
		return w.list
	}
	return append(w.list[:len(w.list):len(w.list)], fmt.Sprintf("… and %d more warnings", w.dropped))
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
