package publish

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// outFile is one document to write.
type outFile struct {
	rel  string
	data []byte
}

// documents are the files of one collection, in the order they are
// written: what a document links to is written before it, the change
// feed and the texts it compares after the change list, and the resource
// list, which the next run compares with, last.
func (p *plan) documents(o *Options) []outFile {
	l := p.l
	capURL := l.docURL(capabilityListName)
	var out []outFile
	for _, c := range p.lists.closed {
		name := archiveName(c.n)
		out = append(out, outFile{l.file(name), changeListXML(capURL, c.from, c.until, c.entries)})
	}
	out = append(out, outFile{l.file(changeListName), changeListXML(capURL, p.lists.from, time.Time{}, p.lists.current)})
	changeList := l.docURL(changeListName)
	if len(p.lists.archives) > 0 {
		archives := slices.Clone(p.lists.archives)
		slices.SortFunc(archives, func(a, b listRef) int { return cmp.Compare(a.n, b.n) })
		var entries []indexEntry
		from := p.lists.from
		for _, a := range archives {
			entries = append(entries, indexEntry{url: l.docURL(archiveName(a.n)), from: a.from, until: a.until})
			if a.from.Before(from) {
				from = a.from
			}
		}
		entries = append(entries, indexEntry{url: changeList, from: p.lists.from})
		out = append(out, outFile{l.file(changeListIndexName), changeListIndexXML(capURL, from, entries)})
		changeList = l.docURL(changeListIndexName)
	}
	out = append(out, p.feedFiles(o)...)
	out = append(out, outFile{l.file(textsName), textsFile(p.texts)})
	up := pageURL(l.base, sourceDescription)
	out = append(out, outFile{l.file(capabilityListName), capabilityListXML(up, p.col, l.docURL(resourceListName), changeList)})
	out = append(out, outFile{l.file(resourceListName), resourceListXML(capURL, p.at, p.resources)})
	return out
}

// write writes every collection's documents, then the Source Description
// naming them, skipping each file whose bytes are already those.
func (r *run) write(plans []*plan) error {
	// Every path is judged before the first file is written, so a refused
	// run leaves the folder as it was.
	docs := make([][]outFile, len(plans))
	for i, p := range plans {
		docs[i] = p.documents(r.o)
		for _, f := range docs[i] {
			if err := noLinks(r.o.Dir, f.rel); err != nil {
				return err
			}
		}
	}
	if err := noLinks(r.o.Dir, sourceDescription); err != nil {
		return err
	}
	var cols []describedCollection
	for i, p := range plans {
		for _, f := range docs[i] {
			if err := r.writeFile(f); err != nil {
				return err
			}
		}
		cols = append(cols, p.col)
		r.res.Collections = append(r.res.Collections, p.res)
	}
	about := ""
	if r.site.indexes[""] {
		about = r.o.BaseURL
	}
	return r.writeFile(outFile{sourceDescription, sourceDescriptionXML(about, cols)})
}

// writeFile replaces the file whole (a reader or a crash never sees half
// of it), and only when its bytes differ.
func (r *run) writeFile(f outFile) error {
	name := filepath.Join(r.o.Dir, filepath.FromSlash(f.rel))
	same, err := sameBytes(name, f.data)
	if err != nil {
		return err
	}
	if same {
		return nil
	}
	// Static hosts serve what others may read.
	if err := replaceFile(name, f.data, 0o644); err != nil {
		return err
	}
	r.res.Written = append(r.res.Written, f.rel)
	return nil
}

// replaceFile writes data to name through a temporary file renamed over
// it.
func replaceFile(name string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tidings-*")
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("publish: write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("publish: write %s: %w", name, err)
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return nil
}

// sameBytes reports whether the file holds exactly data; one of another
// size is not read at all.
func sameBytes(name string, data []byte) (bool, error) {
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("publish: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("publish: %s is in the way: it is not a file", name)
	}
	if fi.Size() != int64(len(data)) {
		return false, nil
	}
	old, err := os.ReadFile(name)
	if err != nil {
		return false, fmt.Errorf("publish: %w", err)
	}
	return bytes.Equal(old, data), nil
}
