package rsync

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"tidings/hints"

	"golang.org/x/net/html/charset"
)

// Sentinel errors returned (wrapped) by Parse; test with errors.Is.
var (
	// ErrEmpty means the input held no root element at all.
	ErrEmpty = errors.New("rsync: empty document")
	// ErrMalformed means the input is not well-formed XML.
	ErrMalformed = errors.New("rsync: not well-formed XML")
	// ErrNotSitemap means the XML root is not a sitemap <urlset> or
	// <sitemapindex>.
	ErrNotSitemap = errors.New("rsync: not a sitemap document")
)

// docError names the document in its message while still matching a
// sentinel kind and the underlying cause with errors.Is.
type docError struct {
	url   string
	msg   string
	kind  error
	cause error
}

func (e *docError) Error() string {
	var b strings.Builder
	b.WriteString("rsync: ")
	if e.url != "" {
		b.WriteString(e.url)
		b.WriteString(": ")
	}
	b.WriteString(e.msg)
	if e.cause != nil {
		b.WriteString(": ")
		b.WriteString(e.cause.Error())
	}
	return b.String()
}

func (e *docError) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Parse reads one ResourceSync document (a sitemap <urlset> or
// <sitemapindex> carrying rs:md and rs:ln elements). docURL is where the
// document came from: it names the document in errors and is the base
// against which relative <loc> and href values are resolved.
//
// Elements are matched by namespace URI, never by prefix. The sitemap
// namespace may be the 0.9 one (http or https), Google's older 0.84 one, or
// absent. Entities are never expanded: a reference to anything but the five
// XML entities fails the parse. Problems confined to one value (an
// unreadable date, an entry without <loc>) become Document.Warnings instead
// of errors. The input must already be decompressed and size-capped; it is
// streamed, so memory holds the entries but never a tree of the document.
func Parse(r io.Reader, docURL string) (*Document, error) {
	return parse(r, docURL, nil)
}

// ParseEach is Parse for documents too big to hold: the entries of a
// <urlset> are handed to each as they are read, in order, and not kept in
// the Document (those of a <sitemapindex> still are). The Entry is valid
// only during the call. Entries handed over before a parse error stay
// handed over; the error still says the document was not read whole.
//
// The parse runs ahead on a goroutine of its own, handing entries over in
// batches: what each does with an entry (a harvest checks and holds it)
// then takes no time from reading the next, and a 50,000-entry change
// list is read in about the time of the slower of the two.
func ParseEach(r io.Reader, docURL string, each func(*Entry)) (*Document, error) {
	if each == nil {
		return parse(r, docURL, nil)
	}
	batches := make(chan []Entry, aheadBatches)
	type result struct {
		doc      *Document
		err      error
		panicked any
	}
	done := make(chan result, 1)
	// gone: each panicked or ended its goroutine (a test's Fatal). The
	// parse then drops what it reads rather than wait for ever, and ends
	// with the document or when the caller closes its reader.
	gone := make(chan struct{})
	defer close(gone)
	send := func(b []Entry) {
		select {
		case batches <- b:
		case <-gone:
		}
	}
	go func() {
		var res result
		defer func() {
			// A panic of the parser is the caller's, as it was before
			// the parse had a goroutine of its own.
			res.panicked = recover()
			close(batches)
			done <- res
		}()
		batch := make([]Entry, 0, aheadBatch)
		res.doc, res.err = parse(r, docURL, func(e *Entry) {
			batch = append(batch, *e)
			if len(batch) == aheadBatch {
				send(batch)
				batch = make([]Entry, 0, aheadBatch)
			}
		})
		if len(batch) > 0 {
			send(batch)
		}
	}()
	for batch := range batches {
		for i := range batch {
			each(&batch[i])
		}
	}
	res := <-done
	if res.panicked != nil {
		panic(res.panicked)
	}
	return res.doc, res.err
}

// The parse runs at most aheadBatches batches of aheadBatch entries
// ahead of each: a few hundred kilobytes, whatever the list's size.
const (
	aheadBatch   = 256
	aheadBatches = 4
)

func parse(r io.Reader, docURL string, each func(*Entry)) (*Document, error) {
	rec := &readRecorder{r: r}
	in, fromBOM, err := skipBOM(rec)
	if err != nil {
		return nil, &docError{url: docURL, msg: "read", cause: err}
	}
	// A value past any this parser keeps (a 45 MB <loc>) is cut as it
	// streams, so that the decoder never holds it whole.
	dec := hints.NewXMLTokens(in, 4*hints.MaxURLBytes, func(label string, in io.Reader) (io.Reader, error) {
		// A byte-order mark is authoritative and the bytes are already
		// UTF-8 by now, whatever the declaration says.
		if fromBOM {
			return in, nil
		}
		return charset.NewReaderLabel(label, in)
	})
	p := &parser{doc: &Document{URL: docURL}, r: &xmlReader{dec: dec}, each: each}
	if base, err := url.Parse(strings.TrimSpace(docURL)); err == nil && base.IsAbs() {
		p.base = base
	}
	if err := p.parseDocument(); err != nil {
		if rec.err != nil {
			return nil, &docError{url: docURL, msg: "read", cause: rec.err}
		}
		var de *docError
		if errors.As(err, &de) {
			de.url = docURL
			return nil, de
		}
		return nil, &docError{url: docURL, msg: "not well-formed XML", kind: ErrMalformed, cause: err}
	}
	return p.doc, nil
}

// readRecorder remembers the first error of the underlying reader, so that
// a body cut off by a size cap is reported as such, not as bad XML.
type readRecorder struct {
	r   io.Reader
	err error
}

func (rr *readRecorder) Read(b []byte) (int, error) {
	n, err := rr.r.Read(b)
	if err != nil && err != io.EOF && rr.err == nil {
		rr.err = err
	}
	return n, err
}

// parseDocument reads the prolog, the root element and what follows it.
// Only whitespace, comments, processing instructions and a DOCTYPE may
// surround the root, which encoding/xml alone would not check.
func (p *parser) parseDocument() error {
	seenRoot := false
	for {
		tok, err := p.r.next()
		if err == io.EOF {
			if !seenRoot {
				return &docError{msg: "empty document", kind: ErrEmpty}
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch tok.kind {
		case tokStart:
			if seenRoot {
				return &docError{msg: "not well-formed XML: more than one root element", kind: ErrMalformed}
			}
			seenRoot = true
			if err := p.checkRoot(tok.el); err != nil {
				return err
			}
			if err := p.parseRoot(); err != nil {
				return err
			}
		case tokText:
			if len(bytes.TrimSpace(tok.text)) != 0 {
				return &docError{msg: "not well-formed XML: text outside the root element", kind: ErrMalformed}
			}
		}
	}
}

// checkRoot checks that root is a sitemap <urlset> or <sitemapindex>.
func (p *parser) checkRoot(root *elem) error {
	kind := Root(root.raw.Local)
	if kind != RootURLSet && kind != RootSitemapIndex {
		msg := fmt.Sprintf("root element <%s> is not <urlset> or <sitemapindex>", root.fullName())
		return &docError{msg: msg, kind: ErrNotSitemap}
	}
	if !isSitemapNS(root.space) {
		msg := fmt.Sprintf("root element <%s> is in namespace %q, not the sitemap namespace", root.fullName(), root.space)
		return &docError{msg: msg, kind: ErrNotSitemap}
	}
	p.doc.Root = kind
	return nil
}

// boms are the byte-order marks Parse recognises, with the charset label
// to decode what follows ("" when it is already UTF-8).
var boms = []struct {
	mark  []byte
	label string
}{
	{[]byte{0xEF, 0xBB, 0xBF}, ""},
	{[]byte{0xFE, 0xFF}, "utf-16be"},
	{[]byte{0xFF, 0xFE}, "utf-16le"},
}

// skipBOM drops a leading byte-order mark, which encoding/xml does not
// understand, and transcodes UTF-16 input to UTF-8. fromBOM reports whether
// a mark was found.
func skipBOM(r io.Reader) (out io.Reader, fromBOM bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(3)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	for _, m := range boms {
		if !bytes.HasPrefix(head, m.mark) {
			continue
		}
		br.Discard(len(m.mark))
		if m.label == "" {
			return br, true, nil
		}
		// UTF-16 documents are rare and small: decode them whole, so that
		// undecodable input can be left for the XML decoder to reject.
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, false, err
		}
		enc, _ := charset.Lookup(m.label)
		if utf8, err := enc.NewDecoder().Bytes(data); err == nil {
			return bytes.NewReader(utf8), true, nil
		}
		return bytes.NewReader(append(append([]byte{}, m.mark...), data...)), false, nil
	}
	return br, false, nil
}

// normNS reduces a namespace URI to the part publishers agree on: scheme,
// case and a trailing slash all vary in the wild.
func normNS(uri string) string {
	uri = strings.ToLower(strings.TrimSpace(uri))
	uri = strings.TrimPrefix(uri, "http://")
	uri = strings.TrimPrefix(uri, "https://")
	return strings.TrimSuffix(uri, "/")
}

// isSitemapNS reports whether uri is one of the sitemap namespaces seen in
// practice, including none at all.
func isSitemapNS(uri string) bool {
	switch normNS(uri) {
	case "",
		"www.sitemaps.org/schemas/sitemap/0.9",
		"www.google.com/schemas/sitemap/0.9",
		"www.google.com/schemas/sitemap/0.84":
		return true
	}
	return false
}

// isRSNS reports whether uri is the ResourceSync namespace.
func isRSNS(uri string) bool {
	return normNS(uri) == normNS(NSResourceSync)
}

// isSitemapElem reports whether el is the sitemap element with that name.
func isSitemapElem(el *elem, tag string) bool {
	return el.raw.Local == tag && isSitemapNS(el.space)
}

// isRSElem reports whether el is the ResourceSync element with that name.
func isRSElem(el *elem, tag string) bool {
	return el.raw.Local == tag && isRSNS(el.space)
}
