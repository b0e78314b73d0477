package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tidings/rsync"
)

// maxDocBytes bounds a document read back from the folder: one tidings
// wrote holds at most 50,000 entries, far under it.
const maxDocBytes = 64 << 20

// Names of the documents in a collection's folder.
const (
	capabilityListName  = "capabilitylist.xml"
	resourceListName    = "resourcelist.xml"
	changeListName      = "changelist.xml"
	changeListIndexName = "changelist-index.xml"
	sourceDescription   = ".well-known/resourcesync"
)

// archiveName is the name of the n-th archived change list.
func archiveName(n int) string { return "changelist-" + strconv.Itoa(n) + ".xml" }

// layout is where one collection's documents live.
type layout struct {
	rel  string // the collection's folder, "" the whole site
	out  string // the folder of its documents, slash path from the root
	base string
}

func newLayout(o *Options, rel string) layout {
	out := o.Folder
	if rel != "" {
		out += "/" + rel
	}
	return layout{rel: rel, out: out, base: o.BaseURL}
}

func (l layout) file(name string) string   { return l.out + "/" + name }
func (l layout) docURL(name string) string { return pageURL(l.base, l.file(name)) }
func (l layout) describes() string         { return folderURL(l.base, l.rel) }

// entry is one change of a change list.
type entry struct {
	url    string
	kind   string
	at     time.Time
	hash   string // "" when deleted
	length int64
	// note is the author's word on the change, written in the change
	// list's tidings:note.
	note string
	// rel and commit are where the run found the change, to read the
	// page's text; never written.
	rel    string
	commit string
}

// resource is one page of a resource list.
type resource struct {
	url     string
	lastmod time.Time
	hash    string
	length  int64
}

// listRef is an archived change list, as the index lists it.
type listRef struct {
	url         string
	n           int
	from, until time.Time
}

// state is what the previous run wrote for one collection.
type state struct {
	found     bool // a resource list was there: this is not the first run
	at        time.Time
	resources map[string]resource
	current   []entry // the open change list
	from      time.Time
	hasList   bool
	archives  []listRef
	// lastArchive is the highest n of a changelist-n.xml in the folder,
	// listed or not: a new archive never overwrites one.
	lastArchive int
}

// readState reads back the documents the last run wrote.
func readState(dir string, l layout) (*state, error) {
	st := &state{resources: map[string]resource{}}
	rl, err := readDoc(dir, l, resourceListName)
	if err != nil {
		return nil, err
	}
	if rl != nil {
		if err := st.takeResources(l, rl); err != nil {
			return nil, err
		}
	}
	cl, err := readDoc(dir, l, changeListName)
	if err != nil {
		return nil, err
	}
	if cl != nil {
		if err := st.takeChanges(l, cl); err != nil {
			return nil, err
		}
	}
	idx, err := readDoc(dir, l, changeListIndexName)
	if err != nil {
		return nil, err
	}
	if idx != nil {
		if err := st.takeIndex(l, idx); err != nil {
			return nil, err
		}
	}
	if err := noLinks(dir, l.out); err != nil {
		return nil, err
	}
	names, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(l.out)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("publish: %w", err)
	}
	for _, e := range names {
		if n, ok := archiveNumber(l, l.docURL(e.Name())); ok {
			st.lastArchive = max(st.lastArchive, n)
		}
	}
	return st, nil
}

// readDoc reads one document of the collection's folder; nil when there is
// none.
func readDoc(dir string, l layout, name string) (*rsync.Document, error) {
	rel := l.file(name)
	if err := noLinks(dir, rel); err != nil {
		return nil, err
	}
	data, err := readCapped(filepath.Join(dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := rsync.Parse(bytes.NewReader(data), l.docURL(name))
	if err != nil {
		return nil, staleErr(l, rel, err.Error())
	}
	return doc, nil
}

// readCapped reads a file no bigger than maxDocBytes.
func readCapped(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxDocBytes {
		return nil, fmt.Errorf("publish: %s is larger than %d MiB, more than tidings writes", name, maxDocBytes>>20)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	return data, nil
}

// staleErr says that a document the last run wrote cannot be taken up,
// and how to go on without losing what the site published.
func staleErr(l layout, rel, why string) error {
	return fmt.Errorf("publish: %s cannot be read back (%s). tidings compares the site with what it wrote there last time: restore it, or delete the folder %s/ to begin the collection's history anew",
		rel, strings.TrimPrefix(why, "rsync: "), l.out)
}

func (st *state) takeResources(l layout, doc *rsync.Document) error {
	rel := l.file(resourceListName)
	if doc.Capability != rsync.CapResourceList || doc.IsIndex() {
		return staleErr(l, rel, "it is not a resource list")
	}
	if up := doc.Link("up"); up != l.docURL(capabilityListName) {
		return staleErr(l, rel, fmt.Sprintf("it was written for the capability list %s, not %s: was --base-url or --folder different then?", up, l.docURL(capabilityListName)))
	}
	st.found = true
	if doc.At != nil {
		st.at = *doc.At
	}
	for _, e := range doc.Entries {
		r := resource{url: e.Loc, hash: e.Hash, length: e.Length}
		if e.Lastmod != nil {
			r.lastmod = *e.Lastmod
		}
		st.resources[e.Loc] = r
	}
	return nil
}

func (st *state) takeChanges(l layout, doc *rsync.Document) error {
	rel := l.file(changeListName)
	if doc.Capability != rsync.CapChangeList || doc.IsIndex() || doc.From == nil {
		return staleErr(l, rel, "it is not a change list with a from date")
	}
	st.hasList, st.from = true, *doc.From
	for _, e := range doc.Entries {
		if e.Datetime == nil {
			return staleErr(l, rel, fmt.Sprintf("its entry for %s has no datetime", e.Loc))
		}
		st.current = append(st.current, entry{url: e.Loc, kind: e.Change, at: *e.Datetime, hash: e.Hash, length: e.Length, note: e.Note})
	}
	return nil
}

func (st *state) takeIndex(l layout, doc *rsync.Document) error {
	rel := l.file(changeListIndexName)
	if doc.Capability != rsync.CapChangeList || !doc.IsIndex() {
		return staleErr(l, rel, "it is not a change list index")
	}
	current := l.docURL(changeListName)
	for _, e := range doc.Entries {
		if e.Loc == current {
			continue
		}
		n, ok := archiveNumber(l, e.Loc)
		if !ok || e.From == nil || e.Until == nil {
			return staleErr(l, rel, fmt.Sprintf("its entry %s is not an archived change list with from and until", e.Loc))
		}
		st.archives = append(st.archives, listRef{url: e.Loc, n: n, from: *e.From, until: *e.Until})
	}
	return nil
}

// archiveNumber reads n back from the URL of archiveName(n).
func archiveNumber(l layout, u string) (int, bool) {
	rest, ok := strings.CutPrefix(u, l.docURL("changelist-"))
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, ".xml"))
	return n, err == nil && n > 0 && strings.HasSuffix(rest, ".xml")
}
