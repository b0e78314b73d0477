package publish

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxURLBytes is the longest URL readers keep (the sitemap protocol's
// limit); a page with a longer one is left out with a warning.
const maxURLBytes = 2048

// maxSitePages bounds the pages read from one folder, whatever the
// collections: each is hashed on every run.
const maxSitePages = 200000

// page is one file that counts as a page, as it is now.
type page struct {
	rel    string // slash path from the site's root
	url    string
	hash   string // "sha-256:<hex>", as ResourceSync writes it
	length int64
}

// site is what the folder holds now.
type site struct {
	dir      string
	pages    []page // in walk order: by path
	byURL    map[string]*page
	indexes  map[string]bool // folders (slash paths, "" the root) with an index.html
	warnings []string
}

// readSite walks the folder and hashes every page.
func readSite(o *Options) (*site, error) {
	info, err := os.Stat(o.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("the site's folder %s does not exist", o.Dir)
		}
		return nil, fmt.Errorf("publish: %w", err)
	}
	if !info.IsDir() {
		return nil, usagef("%s is not a folder", o.Dir)
	}
	for _, c := range o.Collections {
		if c == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(o.Dir, filepath.FromSlash(c))); err != nil || !fi.IsDir() {
			return nil, usagef("the collection %s/ is not a folder in %s", c, o.Dir)
		}
	}
	// The folder itself may be a symbolic link, which WalkDir would not
	// enter; links inside it are not followed.
	root, err := filepath.EvalSymlinks(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("publish: %w", err)
	}
	s := &site{dir: root, byURL: map[string]*page{}, indexes: map[string]bool{}}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if isHiddenPath(rel) || rel == o.Folder {
				return filepath.SkipDir
			}
			return nil
		}
		// Only regular files: a symbolic link may lead out of the site.
		if !d.Type().IsRegular() || !isPage(o, rel) {
			return nil
		}
		if path.Base(rel) == "index.html" {
			s.indexes[dirOf(rel)] = true
		}
		u := pageURL(o.BaseURL, rel)
		if len(u) > maxURLBytes {
			s.warnings = append(s.warnings, fmt.Sprintf("%s was left out: its URL would be longer than %d bytes, which readers skip", rel, maxURLBytes))
			return nil
		}
		if len(s.pages) >= maxSitePages {
			return usagef("%s has more than %d pages; publish its parts with --collection, or fewer files with --include", o.Dir, maxSitePages)
		}
		s.pages = append(s.pages, page{rel: rel, url: u})
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrUsage) {
			return nil, err
		}
		return nil, fmt.Errorf("publish: read %s: %w", o.Dir, err)
	}
	buf := make([]byte, 64<<10)
	for i := range s.pages {
		pg := &s.pages[i]
		if err := hashFile(filepath.Join(root, filepath.FromSlash(pg.rel)), pg, buf); err != nil {
			return nil, err
		}
		s.byURL[pg.url] = pg
	}
	return s, nil
}

// isPage reports whether the file at rel counts as a page: an HTML file,
// or one an --include glob matches; never inside a hidden folder or the
// folder tidings writes to.
func isPage(o *Options, rel string) bool {
	if isHiddenPath(rel) || rel == o.Folder || strings.HasPrefix(rel, o.Folder+"/") || rel == o.Pings.keyFile() {
		return false
	}
	switch strings.ToLower(path.Ext(rel)) {
	case ".html", ".htm":
		return true
	}
	for _, g := range o.Include {
		name := path.Base(rel)
		if strings.Contains(g, "/") {
			name = rel
		}
		if ok, _ := path.Match(strings.TrimPrefix(g, "/"), name); ok {
			return true
		}
	}
	return false
}

// hashFile reads the file through buf: one buffer for every page, where
// io.Copy would allocate one per file.
func hashFile(name string, pg *page, buf []byte) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	if err != nil {
		return fmt.Errorf("publish: read %s: %w", name, err)
	}
	pg.hash = "sha-256:" + hex.EncodeToString(h.Sum(nil))
	pg.length = n
	return nil
}

// dirOf is the slash folder of rel, "" at the root.
func dirOf(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return d
}

// pageURL is where a static host serves the file at rel: index.html is
// served at its folder's URL (with the trailing slash), every other file
// at its own name. Each path segment is percent-encoded.
func pageURL(base, rel string) string {
	segs := strings.Split(rel, "/")
	if segs[len(segs)-1] == "index.html" {
		segs[len(segs)-1] = ""
	}
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return base + strings.Join(segs, "/")
}

// folderURL is the URL of the folder rel ("" the root), with its trailing
// slash.
func folderURL(base, rel string) string {
	if rel == "" {
		return base
	}
	return pageURL(base, rel+"/index.html")
}

// relOfURL turns a page URL back into the file it was, for dating a page
// that is gone; false when it is not under base.
func relOfURL(base, u string) (string, bool) {
	rest, ok := strings.CutPrefix(u, base)
	if !ok {
		return "", false
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return "", false
	}
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return p, true
}

// inCollection reports whether rel lies in the collection folder col.
func inCollection(col, rel string) bool {
	return col == "" || strings.HasPrefix(rel, col+"/")
}
