package iiif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"tidings/hints"
)

// readCapped reads r whole, up to MaxDocumentBytes.
func readCapped(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentBytes+1))
	if err != nil {
		return nil, &Error{Msg: "the document could not be read: " + err.Error(), Err: err}
	}
	if len(data) > MaxDocumentBytes {
		return nil, &Error{Msg: fmt.Sprintf("the document holds more than %d MiB", MaxDocumentBytes>>20), Err: ErrTooLarge}
	}
	return data, nil
}

// Parse reads a stream's document: an OrderedCollection (which must name
// its last page) or an OrderedCollectionPage. An error wraps ErrNotJSON,
// ErrNotStream, ErrNoLast or ErrTooLarge.
func Parse(r io.Reader) (*Document, error) {
	data, err := readCapped(r)
	if err != nil {
		return nil, err
	}
	var raw rawDoc
	if err := decode(data, &raw); err != nil {
		return nil, err
	}
	types := raw.types()
	switch {
	case types.has("OrderedCollectionPage") || types.has("CollectionPage"):
		p, err := parsePage(&raw)
		if err != nil {
			return nil, err
		}
		return &Document{Page: p}, nil
	case types.has("OrderedCollection") || types.has("Collection") && len(raw.Last.id()) > 0:
		c, err := parseCollection(&raw)
		if err != nil {
			return nil, err
		}
		return &Document{Collection: c}, nil
	}
	if t := types.first(); t != "" {
		return nil, &Error{Msg: fmt.Sprintf("the document is of type %q, not an OrderedCollection", clip(t, 80)), Err: ErrNotStream}
	}
	return nil, &Error{Msg: "the document has no type; an OrderedCollection says \"type\": \"OrderedCollection\"", Err: ErrNotStream}
}

func parseCollection(raw *rawDoc) (*Collection, error) {
	c := &Collection{ID: httpURL(raw.id()), First: httpURL(raw.First.id()), Last: httpURL(raw.Last.id()), Label: parseLabel(raw.Label)}
	if c.Last == "" {
		if raw.Last.id() != "" {
			return nil, &Error{Msg: fmt.Sprintf("its last page %q is not an http(s) URL", clip(raw.Last.id(), 200)), Err: ErrNoLast}
		}
		return nil, &Error{Msg: "the OrderedCollection has no \"last\" page, where reading its changes starts", Err: ErrNoLast}
	}
	if n, err := strconv.ParseInt(string(bytes.TrimSpace(raw.TotalItems)), 10, 64); err == nil && n >= 0 {
		c.TotalItems = n
	}
	return c, nil
}

func parsePage(raw *rawDoc) (*Page, error) {
	p := &Page{ID: httpURL(raw.id()), Prev: httpURL(raw.Prev.id()), Next: httpURL(raw.Next.id())}
	var part rawRef
	if json.Unmarshal(raw.PartOf, &part) == nil {
		p.PartOf = httpURL(part.id())
	} else {
		// A collection's partOf is a list; a page's, one object.
		var parts []rawRef
		if json.Unmarshal(raw.PartOf, &parts) == nil && len(parts) > 0 {
			p.PartOf = httpURL(parts[0].id())
		}
	}
	if raw.Prev.id() != "" && p.Prev == "" {
		p.warn(fmt.Sprintf("its prev page %q is not an http(s) URL, so no older page can be read", clip(raw.Prev.id(), 200)))
	}
	items := bytes.TrimSpace(raw.OrderedItems)
	if len(items) == 0 || string(items) == "null" {
		p.warn("it has no orderedItems")
		return p, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(items, &list); err != nil {
		return nil, &Error{Msg: "its orderedItems is not a list", Err: ErrNotStream}
	}
	if len(list) > MaxActivities {
		return nil, &Error{Msg: fmt.Sprintf("the page lists %d activities, more than the %d tidings reads from one page", len(list), MaxActivities), Err: ErrTooLarge}
	}
	p.Items = make([]Activity, 0, len(list))
	for i, item := range list {
		if a, ok := p.activity(i, item); ok {
			p.Items = append(p.Items, a)
		}
	}
	return p, nil
}

// activity reads the i-th activity, or says why it is skipped.
func (p *Page) activity(i int, item json.RawMessage) (Activity, bool) {
	var ra rawActivity
	if err := json.Unmarshal(item, &ra); err != nil {
		p.warn(fmt.Sprintf("activity %d is not a JSON object", i+1))
		return Activity{}, false
	}
	types := ra.Type
	if len(types) == 0 {
		types = ra.AtType
	}
	a := Activity{Type: types.first()}
	for _, t := range []string{Create, Update, Delete, Move, Add, Remove, Refresh} {
		if types.has(t) {
			a.Type = t
		}
	}
	if a.Type == "" {
		p.warn(fmt.Sprintf("activity %d has no type", i+1))
		return Activity{}, false
	}
	a.EndTime = p.datetime(i, "endTime", string(ra.EndTime))
	a.StartTime = p.datetime(i, "startTime", string(ra.StartTime))
	if a.Type == Refresh {
		return a, true
	}
	var ok bool
	if a.Object, ok = p.ref(i, "object", &ra.Object, true); !ok {
		return Activity{}, false
	}
	if a.Target, ok = p.ref(i, "target", &ra.Target, a.Type == Move); !ok {
		return Activity{}, false
	}
	if a.Origin, ok = p.ref(i, "origin", &ra.Origin, false); !ok {
		return Activity{}, false
	}
	return a, true
}

// ref reads an activity's object, target or origin: an absent one is
// fine unless required; one that is there must name an http(s) URL.
func (p *Page) ref(i int, role string, r *rawRef, required bool) (Ref, bool) {
	id := r.id()
	if id == "" {
		if required {
			p.warn(fmt.Sprintf("activity %d has no %s id", i+1, role))
			return Ref{}, false
		}
		return Ref{}, true
	}
	u := httpURL(id)
	if u == "" {
		p.warn(fmt.Sprintf("activity %d: its %s %q is not an http(s) URL of at most %d bytes", i+1, role, clip(cleanText(id), 200), MaxURLBytes))
		return Ref{}, false
	}
	return Ref{ID: u, Type: clip(cleanText(r.types().first()), 100), Label: parseLabel(r.Label)}, true
}

// datetime reads an xsd:dateTime; a bad one is warned of and zero.
func (p *Page) datetime(i int, field, s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := hints.ParseW3CDatetime(s)
	if err != nil {
		p.warn(fmt.Sprintf("activity %d: its %s %q is not a datetime", i+1, field, clip(cleanText(s), 60)))
		return time.Time{}
	}
	return t
}

// ParseManifest reads what names a Presentation API Manifest or
// Collection (version 3 or 2): its label and its home page (3's
// homepage, else 2's related web page). An error wraps ErrNotJSON,
// ErrNotManifest or ErrTooLarge.
func ParseManifest(r io.Reader) (*Manifest, error) {
	data, err := readCapped(r)
	if err != nil {
		return nil, err
	}
	var raw rawDoc
	if err := decode(data, &raw); err != nil {
		if errors.Is(err, ErrNotStream) {
			return nil, &Error{Msg: "the document is not a IIIF Manifest", Err: ErrNotManifest}
		}
		return nil, err
	}
	types := raw.types()
	if !types.has("Manifest") && !types.has("Collection") {
		return nil, &Error{Msg: "the document is not a IIIF Manifest or Collection", Err: ErrNotManifest}
	}
	m := &Manifest{Label: parseLabel(raw.Label)}
	m.Homepage = homepage(raw.Homepage)
	if m.Homepage == "" {
		m.Homepage = homepage(raw.Related)
	}
	return m, nil
}

// homepage is the first HTML page of a homepage (or related) value: an
// object, a list of them, or a URL.
func homepage(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	type page struct {
		ID     flexString `json:"id"`
		AtID   flexString `json:"@id"`
		Format flexString `json:"format"`
	}
	var list []page
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		list = []page{{ID: flexString(s)}}
	case '{':
		var one page
		if json.Unmarshal(raw, &one) != nil {
			return ""
		}
		list = []page{one}
	case '[':
		if json.Unmarshal(raw, &list) != nil {
			return ""
		}
	}
	for _, p := range list {
		f := strings.ToLower(string(p.Format))
		id := strings.TrimSpace(string(p.ID))
		if id == "" {
			id = strings.TrimSpace(string(p.AtID))
		}
		if u := httpURL(id); u != "" && (f == "" || strings.Contains(f, "html")) {
			return u
		}
	}
	return ""
}
