package harvest

import (
	"context"
	"log/slog"

	"tidings/fetch"
)

// Stream starts downloading url, a document too big to hold whole (an
// SCP file), counted among the run's documents. Unlike Fetch it is never
// conditional and keeps no validators. A Retry-After in a refusal is
// honoured by the site's next harvest, and errors are phrased for people,
// naming the document's role; the *fetch.FetchError stays in the chain.
func (j *CollectionRun) Stream(ctx context.Context, role, url string, o fetch.StreamOptions) (*fetch.Stream, error) {
	j.s.documents++
	st, err := j.h.client.Stream(ctx, url, o)
	if err != nil {
		j.s.noteRetryAfter(err)
		return nil, roleError(role, err)
	}
	return st, nil
}

// StreamKnown is Stream made conditional, as Fetch is, on what the last
// fetch of url kept: a 304 is a Stream with NotModified, returned with
// the memo that fetch left. It is for a document a source parses as it
// arrives rather than hold whole (a sitemap of 50 MB); Keep records its
// validators as Fetch's. A MaxBytes of 0 is --max-body.
func (j *CollectionRun) StreamKnown(ctx context.Context, role, url string, o fetch.StreamOptions) (*fetch.Stream, string, error) {
	prev, havePrev := j.s.known[url]
	if havePrev {
		o.Conditional = fetch.Conditional{ETag: prev.ETag, LastModified: prev.LastModified}
	}
	if err := j.s.spend(); err != nil {
		return nil, "", err
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = j.h.client.MaxBody()
	}
	st, err := j.Stream(ctx, role, url, o)
	if err != nil {
		return nil, "", err
	}
	if st.NotModified {
		j.s.notModified++
		return st, prev.Memo, nil
	}
	return st, "", nil
}

// MaxBody is --max-body: what a document may hold once decompressed.
func (j *CollectionRun) MaxBody() int64 { return j.h.client.MaxBody() }

// Logger is the harvester's logger, for what operators may want to know
// of a run beyond its record (a file rejected, a checksum verified).
func (j *CollectionRun) Logger() *slog.Logger { return j.h.opts.Logger }

// CountWarnings adds n warnings to the run's count without their text:
// a parser that kept only its first few says how many more it had.
func (j *CollectionRun) CountWarnings(n int) {
	if n > 0 {
		j.warn.dropped += n
	}
}
