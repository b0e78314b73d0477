// Package crawl reads what a watched page says about the rest of its
// site: the links a polite crawl may follow, its canonical address, and
// the signs that it is no page at all (a sign-in form, a "not found" page
// answering 200). Bytes in, values out: it fetches nothing.
package crawl

import (
	"net/url"
	"path"
	"slices"
	"strings"

	"tidings/urls"
)

// Limits of what one page may make the crawl do.
const (
	// MaxLinks is how many links of one page are kept, in document order;
	// a page of 100,000 links (a generated index, a trap) costs no more.
	MaxLinks = 500
	// MaxHTMLBytes is how much of a page is read for its links.
	MaxHTMLBytes = 4 << 20
	// MaxURLBytes: a longer link is skipped, as the sitemap protocol's
	// limit says of any URL tidings keeps.
	MaxURLBytes = urls.MaxURLBytes
	// maxSegments: a deeper path is taken for a trap (relative links that
	// pile up, /a/a/a/…) rather than a page.
	maxSegments = 12
	// maxRepeats: a path naming one segment this often is a trap.
	maxRepeats = 3
)

// Trap reports whether a canonical URL looks like a crawl trap rather
// than a page: a path too deep, or one naming the same segment again and
// again (/a/a/a/, which relative links on a misconfigured server make
// endless).
func Trap(canonical string) bool {
	u, err := url.Parse(canonical)
	if err != nil {
		return true
	}
	segs := strings.FieldsFunc(u.EscapedPath(), func(r rune) bool { return r == '/' })
	if len(segs) > maxSegments {
		return true
	}
	count := map[string]int{}
	for _, s := range segs {
		if count[s]++; count[s] >= maxRepeats {
			return true
		}
	}
	return false
}

// skipExt are the extensions of files that are not pages; a crawl that
// watches pages does not download them to find out.
var skipExt = []string{
	".7z", ".apk", ".atom", ".avi", ".bin", ".bmp", ".css", ".csv", ".dmg", ".doc", ".docx",
	".epub", ".exe", ".flac", ".gif", ".gz", ".ico", ".iso", ".jpeg", ".jpg", ".js", ".json",
	".m4a", ".mid", ".midi", ".mkv", ".mov", ".mp3", ".mp4", ".odt", ".ogg", ".otf", ".pdf",
	".png", ".ppt", ".pptx", ".psd", ".rar", ".rss", ".svg", ".swf", ".tar", ".tgz", ".tif",
	".tiff", ".ttf", ".txt", ".wasm", ".wav", ".webm", ".webp", ".woff", ".woff2", ".xls",
	".xlsx", ".xml", ".zip",
}

// notPage reports whether a canonical URL names a file that is no page.
func notPage(canonical string) bool {
	u, err := url.Parse(canonical)
	if err != nil {
		return true
	}
	_, found := slices.BinarySearch(skipExt, strings.ToLower(path.Ext(u.Path)))
	return found
}
