package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Shape is what every synthetic site publishes: Collections capability
// lists, each with a change list index of Lists change lists of Entries
// entries, and a robots.txt padded with rules to at least RobotsBytes.
// With Pages, each collection also serves that many HTML pages, which its
// change lists name in turn (created, then updated), and Epoch, when set,
// dates the lists instead of the fixed epoch.
// Mix makes some sites sitemap or pages sites instead (see Kind), each of
// between MinPages and MaxPages pages; NoValidators is the fraction of
// those whose server sends no ETag or Last-Modified.
type Shape struct {
	Collections int
	Lists       int
	Entries     int
	RobotsBytes int
	Pages       int
	Epoch       time.Time

	Mix          Mix
	MinPages     int
	MaxPages     int
	NoValidators float64
}

func (sh Shape) epoch() time.Time {
	if sh.Epoch.IsZero() {
		return epoch
	}
	return sh.Epoch
}

// revision is one revise cycle of a site: the pages whose text it changed.
type revision struct {
	cycle int
	pages []pageKey
}

// epoch dates every generated document, so that a seed alone decides them.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const rsHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`

// siteDocs renders site i's documents at generation gen (how many times the
// site has been mutated), by path, with base (its URL without a trailing
// slash) as the host part of every link. The same arguments always give
// the same bytes.
// revs are the site's page revisions so far, each an updated entry.
func siteDocs(seed int64, i, gen int, sh Shape, base string, revs []revision) map[string][]byte {
	docs := map[string][]byte{}
	var sd bytes.Buffer
	sd.WriteString(rsHead + "  <rs:md capability=\"description\"/>\n")
	for c := range sh.Collections {
		fmt.Fprintf(&sd, "  <url>\n    <loc>%s/c%d/capabilitylist.xml</loc>\n    <rs:md capability=\"capabilitylist\"/>\n    <rs:ln rel=\"describes\" href=\"%s/c%d/\"/>\n  </url>\n", base, c, base, c)
		docs[fmt.Sprintf("/c%d/capabilitylist.xml", c)] = []byte(fmt.Sprintf(rsHead+
			"  <rs:ln rel=\"up\" href=\"%s/.well-known/resourcesync\"/>\n  <rs:ln rel=\"describes\" href=\"%s/c%d/\"/>\n  <rs:md capability=\"capabilitylist\"/>\n"+
			"  <url>\n    <loc>%s/c%d/changelist-index.xml</loc>\n    <rs:md capability=\"changelist\"/>\n  </url>\n</urlset>\n", base, base, c, base, c))
		collectionDocs(docs, seed, i, c, gen, sh, base, revs)
	}
	sd.WriteString("</urlset>\n")
	docs["/.well-known/resourcesync"] = sd.Bytes()
	// A robots.txt with a rule, so a harvester that honours it has one to
	// read, and one that asks conditionally can be answered 304.
	docs["/robots.txt"] = robotsTxt(sh.RobotsBytes)
	return docs
}

var (
	robotsMu   sync.Mutex
	robotsBody = map[int][]byte{}
)

// robotsTxt is the robots.txt of every site: one rule, or, to load a
// harvester's robots.txt handling, rules enough to reach size bytes. They
// disallow only what no site links to, so harvests still go through. The
// sites share one copy: 300 sites of 512 KiB each would otherwise hold
// 150 MB here.
func robotsTxt(size int) []byte {
	robotsMu.Lock()
	defer robotsMu.Unlock()
	if b, ok := robotsBody[size]; ok {
		return b
	}
	var b bytes.Buffer
	b.WriteString("User-agent: *\nDisallow: /private/\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "Disallow: /private/%07d/\n", i)
	}
	robotsBody[size] = b.Bytes()
	return b.Bytes()
}

// collectionDocs adds collection c's index and change lists. Each list
// spans one day; a mutation adds one entry per generation to the last
// list, dated after everything before it.
func collectionDocs(docs map[string][]byte, seed int64, i, c, gen int, sh Shape, base string, revs []revision) {
	epoch := sh.epoch()
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)<<16|uint64(c)))
	kinds := []string{"created", "updated", "updated", "deleted"}
	var idx bytes.Buffer
	fmt.Fprintf(&idx, strings.Replace(rsHead, "urlset", "sitemapindex", 1)+"  <rs:ln rel=\"up\" href=\"%s/c%d/capabilitylist.xml\"/>\n  <rs:md capability=\"changelist\" from=\"%s\"/>\n", base, c, epoch.Format(time.RFC3339))
	for l := range sh.Lists {
		from := epoch.Add(time.Duration(l) * 24 * time.Hour)
		until := from.Add(24 * time.Hour)
		last := l == sh.Lists-1
		var cl bytes.Buffer
		fmt.Fprintf(&cl, rsHead+"  <rs:ln rel=\"up\" href=\"%s/c%d/capabilitylist.xml\"/>\n  <rs:ln rel=\"index\" href=\"%s/c%d/changelist-index.xml\"/>\n", base, c, base, c)
		if last {
			fmt.Fprintf(&cl, "  <rs:md capability=\"changelist\" from=\"%s\"/>\n", from.Format(time.RFC3339))
		} else {
			fmt.Fprintf(&cl, "  <rs:md capability=\"changelist\" from=\"%s\" until=\"%s\"/>\n", from.Format(time.RFC3339), until.Format(time.RFC3339))
		}
		n := sh.Entries
		step := 24 * time.Hour / time.Duration(sh.Entries+1)
		for e := range n {
			page := r.IntN(sh.Entries * 4)
			at := from.Add(time.Duration(e+1) * step)
			kind := kinds[r.IntN(len(kinds))]
			if sh.Pages > 0 {
				// Every served page is named, created before it is
				// updated, and none deleted: each is worth a snapshot.
				n := l*sh.Entries + e
				page, kind = n%sh.Pages, "created"
				if n >= sh.Pages {
					kind = "updated"
				}
			}
			writeEntry(&cl, base, c, page, kind, at, r.Uint64())
		}
		if last {
			for g := range gen {
				// Mutations are dated after the lists' first days, so the
				// harvester's watermark never hides them.
				at := epoch.Add(time.Duration(sh.Lists)*24*time.Hour + time.Duration(g+1)*time.Minute)
				writeEntry(&cl, base, c, g, "updated", at, uint64(g))
			}
			revisionEntries(&cl, base, c, sh, revs)
		}
		cl.WriteString("</urlset>\n")
		path := fmt.Sprintf("/c%d/changes-%d.xml", c, l)
		docs[path] = cl.Bytes()
		fmt.Fprintf(&idx, "  <sitemap>\n    <loc>%s%s</loc>\n", base, path)
		if last {
			fmt.Fprintf(&idx, "    <rs:md capability=\"changelist\" from=\"%s\"/>\n  </sitemap>\n", from.Format(time.RFC3339))
		} else {
			fmt.Fprintf(&idx, "    <rs:md capability=\"changelist\" from=\"%s\" until=\"%s\"/>\n  </sitemap>\n", from.Format(time.RFC3339), until.Format(time.RFC3339))
		}
	}
	idx.WriteString("</sitemapindex>\n")
	docs[fmt.Sprintf("/c%d/changelist-index.xml", c)] = idx.Bytes()
}

func writeEntry(buf *bytes.Buffer, base string, c, page int, kind string, at time.Time, hash uint64) {
	fmt.Fprintf(buf, "  <url>\n    <loc>%s/c%d/pages/%06d.html</loc>\n    <rs:md change=\"%s\" datetime=\"%s\" hash=\"md5:%032x\"/>\n  </url>\n",
		base, c, page, kind, at.Format(time.RFC3339), hash)
}

// mutated returns which of n sites change in cycle: round(n × rate) of
// them, chosen from seed and cycle alone.
func mutated(seed int64, cycle, n int, rate float64) []int {
	k := int(float64(n)*rate + 0.5)
	k = min(max(k, 0), n)
	r := rand.New(rand.NewPCG(uint64(seed), uint64(cycle)|1<<40))
	return r.Perm(n)[:k]
}

// revisionEntries adds an updated entry for each page of collection c that
// a revise cycle changed, dated after every other entry, so that neither
// the watermark nor the first-harvest window hides them.
func revisionEntries(cl *bytes.Buffer, base string, c int, sh Shape, revs []revision) {
	for _, rv := range revs {
		at := sh.epoch().Add(time.Duration(sh.Lists)*24*time.Hour + 12*time.Hour + time.Duration(rv.cycle)*time.Minute)
		for k, pk := range rv.pages {
			if pk.c == c {
				writeEntry(cl, base, c, pk.p, "updated", at.Add(time.Duration(k)*time.Second), uint64(rv.cycle)<<32|uint64(pk.p))
			}
		}
	}
}
