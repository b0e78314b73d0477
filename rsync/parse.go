package rsync

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/beevik/etree"
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
// of errors. The input must already be decompressed and size-capped.
func Parse(r io.Reader, docURL string) (*Document, error) {
	xdoc, err := readXML(r, docURL)
	if err != nil {
		return nil, err
	}
	root := xdoc.Root()
	if root == nil {
		return nil, &docError{url: docURL, msg: "empty document", kind: ErrEmpty}
	}
	kind, err := rootKind(root, docURL)
	if err != nil {
		return nil, err
	}
	p := &parser{doc: &Document{URL: docURL, Root: kind}}
	if base, err := url.Parse(strings.TrimSpace(docURL)); err == nil && base.IsAbs() {
		p.base = base
	}
	p.parseRoot(root)
	return p.doc, nil
}

// readXML decodes r into an etree document, handling byte-order marks and
// declared charsets, and rejects what etree lets through but XML forbids.
func readXML(r io.Reader, docURL string) (*etree.Document, error) {
	// The whole input is held anyway (etree builds a tree from it), and
	// having the bytes lets a failure be explained with a line number.
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &docError{url: docURL, msg: "read", cause: err}
	}
	in, fromBOM := skipBOM(data)
	charsetReader := func(label string, in io.Reader) (io.Reader, error) {
		// A byte-order mark is authoritative and the bytes are already
		// UTF-8 by now, whatever the declaration says.
		if fromBOM {
			return in, nil
		}
		return charset.NewReaderLabel(label, in)
	}
	xdoc := etree.NewDocument()
	xdoc.ReadSettings.CharsetReader = charsetReader
	if err := xdoc.ReadFromBytes(in); err != nil {
		if errors.Is(err, etree.ErrXML) {
			err = explainXML(in, charsetReader, err)
		}
		return nil, &docError{url: docURL, msg: "not well-formed XML", kind: ErrMalformed, cause: err}
	}
	if msg := topLevelProblem(xdoc); msg != "" {
		return nil, &docError{url: docURL, msg: "not well-formed XML: " + msg, kind: ErrMalformed}
	}
	return xdoc, nil
}

// explainXML replaces etree's bare "invalid XML format" (a mismatched or
// missing end tag) with encoding/xml's account of the same problem, which
// names the elements and the line. fallback is kept if that finds nothing.
func explainXML(data []byte, cr func(string, io.Reader) (io.Reader, error), fallback error) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = cr
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return fallback
		}
		if err != nil {
			return err
		}
	}
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
func skipBOM(data []byte) (out []byte, fromBOM bool) {
	for _, m := range boms {
		rest, ok := bytes.CutPrefix(data, m.mark)
		if !ok {
			continue
		}
		if m.label == "" {
			return rest, true
		}
		enc, _ := charset.Lookup(m.label)
		if utf8, err := enc.NewDecoder().Bytes(rest); err == nil {
			return utf8, true
		}
		// Undecodable UTF-16 is left as is, for the XML decoder to reject.
		return data, false
	}
	return data, false
}

// topLevelProblem reports text or a second element outside the root, which
// encoding/xml tolerates but a well-formed document may not contain.
func topLevelProblem(xdoc *etree.Document) string {
	elements := 0
	for _, tok := range xdoc.Child {
		switch t := tok.(type) {
		case *etree.Element:
			elements++
		case *etree.CharData:
			if strings.TrimSpace(t.Data) != "" {
				return "text outside the root element"
			}
		}
	}
	if elements > 1 {
		return "more than one root element"
	}
	return ""
}

// rootKind checks that root is a sitemap <urlset> or <sitemapindex>.
func rootKind(root *etree.Element, docURL string) (Root, error) {
	kind := Root(root.Tag)
	if kind != RootURLSet && kind != RootSitemapIndex {
		msg := fmt.Sprintf("root element <%s> is not <urlset> or <sitemapindex>", root.FullTag())
		return "", &docError{url: docURL, msg: msg, kind: ErrNotSitemap}
	}
	if ns := root.NamespaceURI(); !isSitemapNS(ns) {
		msg := fmt.Sprintf("root element <%s> is in namespace %q, not the sitemap namespace", root.FullTag(), ns)
		return "", &docError{url: docURL, msg: msg, kind: ErrNotSitemap}
	}
	return kind, nil
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
func isSitemapElem(el *etree.Element, tag string) bool {
	return el.Tag == tag && isSitemapNS(el.NamespaceURI())
}

// isRSElem reports whether el is the ResourceSync element with that name.
func isRSElem(el *etree.Element, tag string) bool {
	return el.Tag == tag && isRSNS(el.NamespaceURI())
}
