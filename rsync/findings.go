package rsync

import "fmt"

// Codes of the findings a parse records.
const (
	// FindNoUp: a capability list or change list has no root
	// rs:ln rel="up" to the document above it.
	FindNoUp = "no-up"
	// FindNoDescribes: a capability list (or a Source Description's entry
	// for one) has no rs:ln rel="describes" naming its collection.
	FindNoDescribes = "no-describes"
	// FindNoDatetime: change list entries have no rs:md datetime.
	FindNoDatetime = "no-datetime"
	// FindNoChange: change list entries have no rs:md change.
	FindNoChange = "no-change"
	// FindUnknownChange: change list entries have a change other than
	// created, updated or deleted.
	FindUnknownChange = "unknown-change"
	// FindBadDatetime: change list entries have a datetime that is not a
	// W3C datetime.
	FindBadDatetime = "bad-datetime"
	// FindNoFrom: a change list's root rs:md has no from.
	FindNoFrom = "no-from"
)

// Finding is one way a document departs from what IFCC-0001 asks of its
// authors, noticed while it was parsed. It is data for whoever tells the
// site's owner, not an error: the document is read as it is. One finding
// stands for every entry with the same departure, naming the first.
type Finding struct {
	Code  string `json:"code"`
	Count int    `json:"count,omitempty"` // entries concerned; 0 for the document itself
	Loc   string `json:"loc,omitempty"`   // the first entry concerned
	Entry int    `json:"entry,omitempty"` // its 1-based position
	Line  int    `json:"line,omitempty"`  // the line it starts on
	Value string `json:"value,omitempty"` // what it says, where that matters (an unknown change)
}

// entryNotes counts the entries that share one departure.
type entryNotes struct {
	byCode map[string]*Finding
	order  []string
}

func (n *entryNotes) add(code string, e *Entry, pos, line int, value string) {
	if n.byCode == nil {
		n.byCode = map[string]*Finding{}
	}
	if f, ok := n.byCode[code]; ok {
		f.Count++
		return
	}
	n.byCode[code] = &Finding{Code: code, Count: 1, Loc: e.Loc, Entry: pos, Line: line, Value: clip(value)}
	n.order = append(n.order, code)
}

// noteEntry records what an entry lacks as a change list entry, and the
// newest date it carries; whether the document is a change list is known
// only at its end (its root rs:md may follow the entries).
func (p *parser) noteEntry(e *Entry, pos, line int) {
	switch e.Change {
	case ChangeCreated, ChangeUpdated, ChangeDeleted:
	case "":
		p.notes.add(FindNoChange, e, pos, line, "")
	default:
		p.notes.add(FindUnknownChange, e, pos, line, e.Change)
	}
	at := e.Datetime
	if e.HasBadDate("datetime") {
		p.notes.add(FindBadDatetime, e, pos, line, "")
	} else if at == nil {
		p.notes.add(FindNoDatetime, e, pos, line, "")
		at = e.Lastmod
	}
	if at != nil && (p.doc.Newest == nil || at.After(*p.doc.Newest)) {
		t := *at
		p.doc.Newest, p.doc.NewestLoc = &t, e.Loc
	}
	if e.Capability == CapCapabilityList && e.Link("describes") == "" {
		p.describes.add(FindNoDescribes, e, pos, line, "")
	}
}

// findings turns what was noted into the document's findings, once its
// capability is known.
func (p *parser) findings(root *mdAttrs) {
	d := p.doc
	switch d.Capability {
	case CapChangeList:
		if d.Link("up") == "" {
			d.Findings = append(d.Findings, Finding{Code: FindNoUp})
		}
		if root.from == "" {
			d.Findings = append(d.Findings, Finding{Code: FindNoFrom})
		}
		if d.IsIndex() {
			break
		}
		for _, code := range p.notes.order {
			d.Findings = append(d.Findings, *p.notes.byCode[code])
		}
	case CapCapabilityList:
		if d.Link("up") == "" {
			d.Findings = append(d.Findings, Finding{Code: FindNoUp})
		}
		if d.Link("describes") == "" {
			d.Findings = append(d.Findings, Finding{Code: FindNoDescribes})
		}
	case CapDescription:
		if f := p.describes.byCode[FindNoDescribes]; f != nil {
			d.Findings = append(d.Findings, *f)
		}
	}
	if d.Capability != CapChangeList || d.IsIndex() {
		d.Newest, d.NewestLoc = nil, ""
	}
}

// String says what a finding is in a few words, for logs and tests.
func (f Finding) String() string {
	s := f.Code
	if f.Count > 0 {
		s += fmt.Sprintf(" ×%d, first entry %d <%s> on line %d", f.Count, f.Entry, f.Loc, f.Line)
	}
	if f.Value != "" {
		s += fmt.Sprintf(" (%q)", f.Value)
	}
	return s
}
