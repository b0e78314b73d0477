package harvest

import "context"

// Notes hears, while a harvest runs, about the documents it read whole,
// what their sources found wrong with them, and the documents that failed
// validation: the site check (sitecheck) turns them into what it tells
// the site's owner, without knowing any source. It travels with the
// context, so an ordinary harvest, which carries none, pays one lookup
// per document.
type Notes interface {
	// Read is a document read whole, as its source describes it.
	Read(doc Document)
	// Found is what a source found wrong with a document it read.
	Found(f Finding)
	// Rejected is a document that failed validation: source names the
	// registered source it was read for, role what it was to the source
	// ("delta", "ARC sitemap"). The check asks the source to explain err
	// (Explainer).
	Rejected(source, role, url string, err error)
}

// Document is what a source says a document it read whole is, for the
// site check's list of what gave change information.
type Document struct {
	URL string
	// What says what it is, to follow "… is": "a change list", "a
	// capability list naming a change list and a resource list".
	What string
	// PageList is the address of the document beside it that lists its
	// collection's pages (a capability list's resource list), if any.
	PageList string
	// Lists: the document lists a collection's pages, Pages of them.
	Lists bool
	Pages int
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

// NoteRejected tells the context's Notes (the site check) of a document
// of a source that failed validation.
func NoteRejected(ctx context.Context, source, role, u string, err error) {
	if n := notesOf(ctx); n != nil {
		n.Rejected(source, role, u, err)
	}
}

// NoteDocument tells the context's Notes (the site check) what a document
// read whole is.
func NoteDocument(ctx context.Context, doc Document) {
	if n := notesOf(ctx); n != nil {
		n.Read(doc)
	}
}

// NoteFinding tells the context's Notes (the site check) what a source
// found wrong with a document it read.
func NoteFinding(ctx context.Context, f Finding) {
	if n := notesOf(ctx); n != nil {
		n.Found(f)
	}
}

// Noting reports whether anyone hears the notes of ctx: a source need not
// describe its documents for nobody.
func Noting(ctx context.Context) bool { return notesOf(ctx) != nil }
