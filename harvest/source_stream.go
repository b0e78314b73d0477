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
