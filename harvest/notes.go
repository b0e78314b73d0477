package harvest

import "context"

// Notes hears, while a harvest runs, about the documents it parsed and
// those it rejected: the site check (sitecheck) turns them into problems
// with their fixes. It travels with the context, so an ordinary harvest,
// which carries none, pays one lookup per document.
type Notes interface {
	// Parsed is a document read whole for the registered source named;
	// doc is that source's own parse of it.
	Parsed(source string, doc any)
	// Rejected is a document that failed validation: source names the
	// registered source it was read for, role what it was to the source
	// ("delta", "ARC sitemap").
	Rejected(source, role, url string, err error)
}

type notesKey struct{}

// WithNotes returns a context whose harvests tell n what they read.
func WithNotes(ctx context.Context, n Notes) context.Context {
	return context.WithValue(ctx, notesKey{}, n)
}

func notesOf(ctx context.Context) Notes {
	n, _ := ctx.Value(notesKey{}).(Notes)
	return n
}

// noteRejected tells the context's Notes of a document that failed
// validation.
func noteRejected(ctx context.Context, source, role, u string, err error) {
	if n := notesOf(ctx); n != nil {
		n.Rejected(source, role, u, err)
	}
}
