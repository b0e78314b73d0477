package resourcesync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/rsync"
)

// host is where ResourceSync documents are read: a site's discovery
// (*harvest.SiteDiscovery) or a collection's harvest
// (*harvest.CollectionRun), each keeping what it read with its run.
type host interface {
	Fetch(ctx context.Context, role, url string) (*fetch.Response, string, error)
	FetchState(url string) (db.FetchState, bool)
	Remember(url string, resp *fetch.Response, memo, digest string)
	Forget(url string)
	Passed(key string) (any, bool)
	Given(url string) (*fetch.Response, bool)
}

// docs reads the ResourceSync documents of one discovery or harvest,
// conditionally, remembering each (but change lists) as a memo with its
// validators: a document that has not changed is not parsed again.
type docs struct {
	host
	// cut, in a collection's harvest, is told of each change list read
	// whole: should changes wait for the next harvest, the list must be
	// read again then.
	cut func(url string)
	// now and strict phrase what the site check is told (see note): the
	// harvest's time, and whether entries without a datetime are ignored
	// (Settings.StrictDatetime).
	now    time.Time
	strict bool
}

// passKey is what discovery passes a document it read on under.
func passKey(url string) string { return Name + " " + url }

// doc fetches and parses a ResourceSync document. When the document has
// not changed, answered 304 or served again byte for byte, it returns the
// document remembered from the previous fetch, or nil when nothing was
// remembered: a change list that has not changed holds nothing new.
func (r docs) doc(ctx context.Context, role, url string) (*rsync.Document, error) {
	return r.docEach(ctx, role, url, nil)
}

// docEach is doc for a document that may be a change list: the entries of
// a <urlset> read now go to each instead of the Document, so that a list
// of half a million entries is never held whole. Entries of a document
// remembered or read before are still in the Document it returns.
func (r docs) docEach(ctx context.Context, role, url string, each func(*rsync.Entry)) (*rsync.Document, error) {
	if v, ok := r.Passed(passKey(url)); ok {
		if d, ok := v.(*rsync.Document); ok {
			return d, nil
		}
	}
	resp, given := r.Given(url)
	var memo string
	if !given {
		if s, ok := r.host.(streamer); ok && each != nil {
			if _, known := r.FetchState(url); !known {
				return r.streamEach(ctx, s, role, url, each)
			}
		}
		var err error
		if resp, memo, err = r.Fetch(ctx, role, url); err != nil {
			return nil, err
		}
	}
	if resp.NotModified {
		return r.remembered(ctx, role, url, memo)
	}
	sum := digest(resp.Body)
	if prev, ok := r.FetchState(url); ok && prev.Digest == sum {
		// Many servers send no validators. The digest does their work and
		// spares the parse of an unchanged 50,000-entry list.
		r.Remember(url, resp, prev.Memo, sum)
		return r.remembered(ctx, role, url, prev.Memo)
	}
	listed := 0
	counted := each
	if each != nil {
		counted = func(e *rsync.Entry) {
			listed++
			each(e)
		}
	}
	d, err := rsync.ParseEach(bytes.NewReader(resp.Body), url, counted)
	if err != nil {
		return nil, parseError(role, err)
	}
	r.note(ctx, d, listed)
	if each != nil && !d.IsIndex() {
		// Its entries are gone: it is remembered as a change list is.
		r.keepChangeList(url, resp, sum)
		return d, nil
	}
	r.keep(url, resp, d, sum)
	return d, nil
}

// keep keeps a ResourceSync document's validators and the digest of its
// body, with the document as memo. Change lists are not remembered:
// unchanged, they add nothing, and they are the big documents.
func (r docs) keep(url string, resp *fetch.Response, d *rsync.Document, sum string) {
	if d.IsIndex() || d.Capability != rsync.CapChangeList {
		memo := ""
		if b, err := json.Marshal(d); err == nil {
			memo = string(b)
		}
		r.Remember(url, resp, memo, sum)
		return
	}
	r.keepChangeList(url, resp, sum)
}

// keepChangeList keeps a change list's validators and digest, without a
// memo.
func (r docs) keepChangeList(url string, resp *fetch.Response, sum string) {
	if r.cut != nil {
		r.cut(url)
	}
	r.Remember(url, resp, "", sum)
}

// remembered returns the document memo describes, or nil for a change list,
// which is not remembered.
func (r docs) remembered(ctx context.Context, role, url, memo string) (*rsync.Document, error) {
	if memo == "" {
		return nil, nil
	}
	var d rsync.Document
	if err := json.Unmarshal([]byte(memo), &d); err == nil {
		return &d, nil
	}
	// A memo that cannot be read must not wedge a collection.
	r.Forget(url)
	return r.doc(ctx, role, url)
}

// digest is what a fetch state keeps of a body to recognise it again.
func digest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// parseError phrases for people why a document could not be read as a
// ResourceSync document, naming its role when given.
func parseError(role string, err error) error {
	msg := trimRsync(err)
	if role != "" {
		msg = role + " " + msg
	}
	return &harvest.Problem{Msg: msg, Err: err}
}

func trimRsync(err error) string {
	return strings.TrimPrefix(err.Error(), "rsync: ")
}
