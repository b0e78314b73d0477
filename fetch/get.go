package fetch

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// GetOptions are the limits of one GetWith beyond the client's own.
type GetOptions struct {
	Conditional
	// MaxBody caps this body after decompression, below the client's
	// MaxBody (a page read for its text needs less than a sitemap); 0, or
	// more than the client's, means the client's.
	MaxBody int64
	// Types, when set, are the media types the caller reads: an answer of
	// any other Content-Type is refused at its headers, its body unread.
	// An entry is a media type ("text/html"), a whole type ("text/*") or a
	// structured syntax suffix ("+xml", matching application/atom+xml). An
	// answer without a Content-Type is read: the caller sniffs it, and the
	// caps still bound it. PageTypes are those of a page.
	Types []string
}

// PageTypes are the media types of a page whose text tidings reads: HTML,
// XML, text and JSON.
var PageTypes = []string{"text/html", "application/xhtml+xml", "text/*", "application/xml", "+xml", "application/json", "+json"}

// ErrTooLarge matches (errors.Is) the error of a body over its cap, found
// while reading or announced by Content-Length.
var ErrTooLarge = errors.New("fetch: the body is larger than the limit")

// ErrUnwantedType matches (errors.Is) the error of an answer refused at
// its headers for its Content-Type (GetOptions.Types).
var ErrUnwantedType = errors.New("fetch: the answer is not of a type the caller reads")

// sentence is an error phrased for people that matches a sentinel.
type sentence struct {
	msg string
	is  error
}

func (e *sentence) Error() string        { return e.msg }
func (e *sentence) Is(target error) bool { return target == e.is }

// admit judges a 2xx answer by its headers alone, before its body is
// read: its type, the length it announces against the cap, and against
// what is left of the budget.
func admit(resp *http.Response, limit bodyLimit, budget *Budget) error {
	ct := resp.Header.Get("Content-Type")
	if len(limit.types) > 0 && !typeAllowed(ct, limit.types) {
		mt := mediaType(ct)
		if len(mt) > 100 { // a header is the site's to fill
			mt = mt[:100] + "…"
		}
		return &sentence{msg: fmt.Sprintf("was not downloaded: it is %s, not a type of document tidings reads here", mt), is: ErrUnwantedType}
	}
	// The cap counts inflated bytes and Content-Length compressed ones;
	// deflate's stored blocks, the most a compressor can add, cost 5 bytes
	// in 64 KiB, so a length over this margin cannot inflate to the cap.
	if n := resp.ContentLength; !limit.truncate && n > limit.max+limit.max/1024+1024 {
		return &sentence{msg: fmt.Sprintf("is larger than the limit of %s%s: it announces %s", SizeString(limit.max), limit.flag, SizeString(n)), is: ErrTooLarge}
	}
	if err := budget.admit(resp.ContentLength); err != nil {
		return fmt.Errorf("was not downloaded: %w", err)
	}
	return nil
}

// typeAllowed tells whether the Content-Type ct is one of types.
func typeAllowed(ct string, types []string) bool {
	mt := mediaType(ct)
	if mt == "" {
		return true
	}
	main, _, _ := strings.Cut(mt, "/")
	for _, t := range types {
		switch {
		case t == mt:
			return true
		case strings.HasSuffix(t, "/*") && strings.TrimSuffix(t, "/*") == main:
			return true
		case strings.HasPrefix(t, "+") && strings.HasSuffix(mt, t):
			return true
		}
	}
	return false
}

// mediaType is ct's media type, lower-cased and without parameters.
func mediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	before, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(before))
}
