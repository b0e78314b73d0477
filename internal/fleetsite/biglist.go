package fleetsite

import (
	"bytes"
	"fmt"
	"time"
)

// BigChangeList writes a change list of n entries of about 220 bytes
// each, under base/big/, dated within the last day before now so that
// all of them are new on a first harvest: the list of scenario 1 of the
// benchmarks, in process and as a person runs tidings follow.
func BigChangeList(base string, n int, now time.Time) []byte {
	var buf bytes.Buffer
	buf.Grow(n * 230)
	buf.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="` + base + `/big/capabilitylist.xml"/>
  <rs:md capability="changelist" from="` + now.Add(-48*time.Hour).Format(time.RFC3339) + `"/>
`)
	kinds := []string{"created", "updated", "updated", "deleted"}
	for i := range n {
		at := now.Add(-time.Duration(n-i) * time.Second).Format(time.RFC3339)
		fmt.Fprintf(&buf, `  <url>
    <loc>%s/big/section-%03d/page-%06d.html</loc>
    <rs:md change="%s" datetime="%s" length="%d" hash="md5:%032x"/>
  </url>
`, base, i%997, i, kinds[i%len(kinds)], at, 1000+i*7%90000, uint64(i)*2654435761)
	}
	buf.WriteString("</urlset>\n")
	return buf.Bytes()
}
