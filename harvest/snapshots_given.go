package harvest

import (
	"crypto/sha256"
	"encoding/hex"

	"tidings/db"
	"tidings/pagetext"
)

// maxGivenBytes bounds the page text one collection harvest holds from
// the change information itself (SCP content blocks): an SCP snapshot of
// a big section must not hold every page's text. Pages past it are
// fetched like any other.
const maxGivenBytes = 32 << 20

// givenPage is a page's text as the site's change information gave it.
type givenPage struct {
	title, text string
}

// givenNote is readAndCompare for a page whose text the change information
// gave: nothing is fetched.
func givenNote(j *CollectionRun, url, kind string, g givenPage, prev db.Snapshot, had bool) (*pageNote, *db.Snapshot) {
	sum := sha256.Sum256([]byte(g.text))
	snap := &pagetext.Snapshot{Title: g.title, Text: g.text, TextHash: hex.EncodeToString(sum[:])}
	sh := &pageNote{title: g.title}
	sh.textChange, sh.diff = compareText(kind, prev, had, snap, maxGivenBytes, j.reading.noise())
	return sh, &db.Snapshot{
		URL: url, FinalURL: url, Title: g.title, Size: int64(len(g.text)),
		ContentHash: pageDigest([]byte(g.text)), Text: pagetext.Compress(g.text), FetchedAt: j.now,
	}
}
