package publish

import (
	"bytes"
	"encoding/xml"
	"strings"
	"time"

	"tidings/rsync"
)

// NSNote is the namespace of the change note tidings writes on a change
// list entry's rs:md (`tidings:note="…"`). IFCC-0001 says nothing of
// extensions; ResourceSync, like the sitemap protocol it builds on, lets
// a document carry attributes of other namespaces, which readers that do
// not know them skip.
const NSNote = "urn:x-tidings:publish"

// notePrefix is the prefix NSNote is bound to, on a change list's root.
const notePrefix = "tidings"

// noteKey names one change of a change list.
type noteKey struct {
	url, kind string
	at        time.Time
}

// takeNotes reads back the notes of the change list data onto its entries,
// which rsync.Parse read without them.
func takeNotes(entries []entry, data []byte) {
	notes := map[noteKey]string{}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var inURL, inLoc bool
	var loc strings.Builder
	var md map[string]string
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch {
			case el.Name.Space == rsync.NSSitemap && el.Name.Local == "url":
				inURL, md = true, nil
				loc.Reset()
			case inURL && el.Name.Space == rsync.NSSitemap && el.Name.Local == "loc":
				inLoc = true
			case inURL && el.Name.Space == rsync.NSResourceSync && el.Name.Local == "md":
				md = map[string]string{}
				for _, a := range el.Attr {
					if a.Name.Space == "" || a.Name.Space == NSNote {
						md[a.Name.Space+" "+a.Name.Local] = a.Value
					}
				}
			}
		case xml.CharData:
			if inLoc && loc.Len() < maxURLBytes {
				loc.Write(el)
			}
		case xml.EndElement:
			switch {
			case el.Name.Local == "loc":
				inLoc = false
			case el.Name.Space == rsync.NSSitemap && el.Name.Local == "url":
				inURL = false
				note := md[NSNote+" note"]
				at, err := time.Parse(time.RFC3339, md[" datetime"])
				if note != "" && err == nil {
					notes[noteKey{strings.TrimSpace(loc.String()), md[" change"], at.UTC()}] = note
				}
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		e.note = notes[noteKey{e.url, e.kind, e.at.UTC()}]
	}
}

// noteFor is the note of a change the run found: the page's own
// change-note when it is new (one left in the page from an earlier
// change says nothing of this one), else the run's --note, else the
// subject of the commit that made the change.
func noteFor(e entry, was, now pageText, runNote string) string {
	if e.kind != rsync.ChangeDeleted && now.Note != "" && now.Note != was.Note {
		return now.Note
	}
	if runNote != "" {
		return runNote
	}
	return e.note
}
