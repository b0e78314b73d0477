package harvest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"tidings/db"
	"tidings/pagetext"
	"tidings/scpbridge"
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

// give hands the run the text of an SCP page's content blocks, so that
// its snapshot costs no fetch.
func (j *CollectionRun) give(p *scpbridge.Page) {
	max := j.PageTextMax()
	if max == 0 {
		return
	}
	j.GivePage(p.URL, pagetext.Clip(p.Title, maxSCPTitle), blocksText(p.Content, max))
}

// blocksText is the readable text of SCP content blocks in the form
// pagetext gives a fetched page: one heading, paragraph, quote or code
// line per line, white space collapsed, at most max bytes. Lists and
// tables are decoded by no one yet, so their text is not seen.
func blocksText(blocks []scpbridge.Block, max int) string {
	var sb strings.Builder
	for _, b := range blocks {
		var lines []string
		switch b.Type {
		case "code":
			lines = strings.Split(b.Text, "\n")
		case "text", "heading", "quote", "link":
			lines = []string{b.Text}
		}
		for _, l := range lines {
			l = strings.Join(strings.Fields(l), " ")
			if l == "" {
				continue
			}
			if sb.Len()+len(l)+1 > max {
				return sb.String()
			}
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(l)
		}
	}
	return sb.String()
}

// givenShot is takeShot for a page whose text the change information
// gave: nothing is fetched.
func givenShot(j *CollectionRun, url, kind string, g givenPage, prev db.Snapshot, had bool) (*shot, *db.Snapshot) {
	sum := sha256.Sum256([]byte(g.text))
	snap := &pagetext.Snapshot{Title: g.title, Text: g.text, TextHash: hex.EncodeToString(sum[:])}
	sh := &shot{title: g.title}
	sh.textChange, sh.diff = compareText(kind, prev, had, snap, maxGivenBytes)
	return sh, &db.Snapshot{
		URL: url, FinalURL: url, Title: g.title, Size: int64(len(g.text)),
		ContentHash: pageDigest([]byte(g.text)), Text: pagetext.Compress(g.text), FetchedAt: j.now,
	}
}
