package imports

import (
	"bytes"
	"fmt"
	"strings"
)

// parseList reads a plain list: one address a line. Blank lines and
// lines starting with # are passed over; a line whose first word has no
// dot is refused as no address at all. What follows the address on its
// line is taken as tags, comma-separated, as changedetection.io's
// "URL tag1, tag2" lists give them.
func parseList(text []byte) *Plan {
	p := &Plan{Format: FormatList}
	n := 0
	for line := range bytes.Lines(text) {
		n++
		s := strings.TrimSpace(string(line))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		from := fmt.Sprintf("line %d", n)
		addr, rest, _ := strings.Cut(s, " ")
		if !strings.Contains(addr, ".") && !strings.Contains(addr, "://") {
			p.refuse(from, fmt.Sprintf("%s is not a web address", quote(s)))
			continue
		}
		site, ok := p.entry(from, addr, "")
		if !ok {
			continue
		}
		for t := range strings.SplitSeq(rest, ",") {
			site.addTag(t)
		}
	}
	return p
}
