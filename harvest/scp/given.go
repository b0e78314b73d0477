package scp

import (
	"strings"

	"tidings/pagetext"
	"tidings/scpbridge"
)

// give hands the run the text of an SCP page's content blocks, so that
// its snapshot costs no fetch.
func (h *scpHarvest) give(p *scpbridge.Page) {
	max := h.r.PageTextMax()
	if max == 0 {
		return
	}
	h.r.GivePage(p.URL, pagetext.Clip(p.Title, maxSCPTitle), blocksText(p.Content, max))
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
