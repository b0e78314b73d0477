package iiif

import (
	"errors"
	"fmt"
	"strings"

	"tidings/fetch"
	iiifdoc "tidings/iiif"
)

// What can be wrong with a stream beside what the parser says
// (iiifdoc.ErrNotJSON, ErrNotStream, ErrNoLast, ErrTooLarge).
var (
	// ErrPageMissing: the collection or one of its pages answered 404 or
	// 410.
	ErrPageMissing = errors.New("iiif: a document of the stream is missing")
	// ErrPageLoop: following prev came back to a page already read, or
	// to newer activities than the page before.
	ErrPageLoop = errors.New("iiif: the stream's prev links go round in a loop")
)

// StreamError is a stream that could not be read: which document (its
// role and URL) and why (Err, one of the errors above or the parser's;
// Cause, the fetch's or parser's own error).
type StreamError struct {
	Role  string // "collection" or "page"
	URL   string
	Err   error
	Cause error
}

func (e *StreamError) Error() string {
	why := e.Err
	if e.Cause != nil {
		why = e.Cause
	}
	return fmt.Sprintf("the IIIF stream's %s %s: %s", e.Role, e.URL, strings.TrimPrefix(why.Error(), "iiif: "))
}

func (e *StreamError) Unwrap() []error { return []error{e.Err, e.Cause} }

// fetchError makes a failed fetch a StreamError; nil for other failures
// (a timeout, a refusal), which the run's error says as they are.
func fetchError(role, u string, err error) *StreamError {
	var fe *fetch.FetchError
	if errors.As(err, &fe) && (fe.Status == 404 || fe.Status == 410) {
		return &StreamError{Role: role, URL: u, Err: ErrPageMissing, Cause: err}
	}
	if errors.Is(err, fetch.ErrTooLarge) {
		return &StreamError{Role: role, URL: u, Err: iiifdoc.ErrTooLarge, Cause: err}
	}
	return nil
}

// Explain says, in a site owner's words, what a stream's harvest error
// means and how to fix it; ok is false for an error it does not know.
func (Source) Explain(err error) (what, fix string, ok bool) {
	var se *StreamError
	if !errors.As(err, &se) {
		return "", "", false
	}
	doc := "the page " + se.URL + " of your IIIF change stream"
	if se.Role == "collection" {
		doc = "your IIIF change stream " + se.URL
	}
	switch {
	case errors.Is(se, iiifdoc.ErrNotJSON):
		return doc + " is not JSON, so none of its changes can be read",
			"Serve the stream's documents as JSON (Content-Type application/ld+json;profile=\"http://iiif.io/api/discovery/1/context.json\", or application/json) at their addresses; an HTML page there, such as a login or \"not found\" page answering 200, is not a stream.", true
	case errors.Is(se, iiifdoc.ErrNoLast):
		return doc + " names no last page, where a reader starts: changes are read from the newest page backwards",
			"Give the OrderedCollection a \"last\": {\"id\": \"…\", \"type\": \"OrderedCollectionPage\"} naming the page of its newest activities (the spec's section 3.1).", true
	case errors.Is(se, iiifdoc.ErrNotStream):
		return doc + " is JSON but not an Activity Streams OrderedCollection or OrderedCollectionPage",
			"Publish an OrderedCollection (\"type\": \"OrderedCollection\") whose pages (\"type\": \"OrderedCollectionPage\") list activities in orderedItems; link that collection, not a Manifest or a IIIF Collection.", true
	case errors.Is(se, ErrPageMissing):
		return doc + " answers 404 Not Found, so the changes in it and before it cannot be read",
			"Serve every page the collection's last and each page's prev name, or correct the links: a reader follows last, then prev back to the changes it has seen.", true
	case errors.Is(se, iiifdoc.ErrTooLarge):
		return doc + fmt.Sprintf(" is too large to read (more than %d MiB or %d activities)", iiifdoc.MaxDocumentBytes>>20, iiifdoc.MaxActivities),
			"Split the stream into more pages, linked by prev and next; a few hundred activities a page is usual.", true
	case errors.Is(se, ErrPageLoop):
		return doc + " leads back, through prev, to a page already read (or to newer changes), so reading back never ends",
			"Make each page's prev name the page of the activities just before its own, and the first page have no prev.", true
	}
	return "", "", false
}
