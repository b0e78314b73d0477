package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// A plain site is a sitemap or pages site: a static site of HTML pages
// that publishes no change list. Its pages are a home page, a few
// sections each with an index and, past articlesPerListing articles,
// numbered listing pages, the articles, and an about page: every page is
// at most three links from the home page, as the section index links to
// each listing page.
type plainSite struct {
	name       string
	scope      string // the path the site lives under: "/" or "/project/"
	variant    sitemapVariant
	validators bool // answers carry ETag and Last-Modified
	sections   []string
	pages      []plainPage
	byPath     map[string]int
	// arts are the articles' indexes in order; secArts and secListings
	// each section's articles and listing pages. Kept, as every page
	// rendered asks for them.
	arts        []int
	secArts     [][]int
	secListings [][]int

	build    int   // builds so far: each revision rebuilds the site
	versions []int // how many times each page's text was revised
	builtIn  []int // the build that last changed each page
}

type pageRole int

const (
	roleHome pageRole = iota
	roleSection
	roleListing
	roleArticle
	roleAbout
)

type plainPage struct {
	path    string
	title   string
	role    pageRole
	section int
	// number is the listing page's number (2, 3, …) or the article's
	// place in its section.
	number int
}

// articlesPerListing is how many articles a section index or listing page
// lists, as a blog's pagination does.
const articlesPerListing = 15

// newPlainSite lays out site i's n pages under scope from the seed.
func newPlainSite(seed int64, i, n int, scope string) *plainSite {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)<<8|3<<60))
	ps := &plainSite{name: capitalize(phrase(r, 2)), scope: scope, byPath: map[string]int{}}
	nSections := min(2+n/50, 6)
	used := map[string]bool{"about": true, "assets": true, "page": true}
	for range nSections {
		s := slug(phrase(r, 1))
		for used[s] || len(s) < 4 {
			s = slug(phrase(r, 1))
		}
		used[s] = true
		ps.sections = append(ps.sections, s)
	}
	ps.add(plainPage{path: scope, title: ps.name, role: roleHome})
	for k, s := range ps.sections {
		ps.add(plainPage{path: scope + s + "/", title: capitalize(s), role: roleSection, section: k})
	}
	ps.add(plainPage{path: scope + "about/", title: "About " + ps.name, role: roleAbout})
	counts := make([]int, nSections)
	for a := 0; len(ps.pages) < n; a++ {
		k := a % nSections
		if counts[k] > 0 && counts[k]%articlesPerListing == 0 {
			if len(ps.pages)+2 > n {
				// No room for a listing page and its first article: the
				// last page is a contact page instead.
				ps.add(plainPage{path: scope + "contact/", title: "Contact", role: roleAbout})
				break
			}
			num := counts[k]/articlesPerListing + 1
			ps.add(plainPage{path: fmt.Sprintf("%s%s/page/%d/", scope, ps.sections[k], num), title: fmt.Sprintf("%s, page %d", capitalize(ps.sections[k]), num), role: roleListing, section: k, number: num})
		}
		title := capitalize(phrase(r, 3+r.IntN(5)))
		ps.add(plainPage{path: fmt.Sprintf("%s%s/%s-%d/", scope, ps.sections[k], slug(title), counts[k]), title: title, role: roleArticle, section: k, number: counts[k]})
		counts[k]++
	}
	ps.versions = make([]int, len(ps.pages))
	ps.builtIn = make([]int, len(ps.pages))
	ps.secArts = make([][]int, nSections)
	ps.secListings = make([][]int, nSections)
	for x, p := range ps.pages {
		switch p.role {
		case roleArticle:
			ps.arts = append(ps.arts, x)
			ps.secArts[p.section] = append(ps.secArts[p.section], x)
		case roleListing:
			ps.secListings[p.section] = append(ps.secListings[p.section], x)
		}
	}
	return ps
}

func (ps *plainSite) add(p plainPage) {
	ps.byPath[p.path] = len(ps.pages)
	ps.pages = append(ps.pages, p)
}

func slug(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), " ", "-")
}

// articles returns the indexes of the pages whose text revisions change:
// the articles, in order. The slice is the site's own.
func (ps *plainSite) articles() []int { return ps.arts }

// section returns the articles of section k in order, and its listing
// pages. The slices are the site's own.
func (ps *plainSite) section(k int) (articles, listings []int) {
	return ps.secArts[k], ps.secListings[k]
}

// revise rewrites the text of the pages idx in one new build.
func (ps *plainSite) revise(idx []int) {
	ps.build++
	for _, x := range idx {
		ps.versions[x]++
		ps.builtIn[x] = ps.build
	}
}

// buildTime is when build b was made: a day after the one before, so that
// a sitemap stamped with the build's date alone (as MkDocs writes it)
// moves at every build too.
func buildTime(epoch time.Time, b int) time.Time {
	return epoch.Add(time.Duration(b)*24*time.Hour + 10*time.Hour + 37*time.Minute)
}

// modTime is when page x last changed.
func (ps *plainSite) modTime(epoch time.Time, x int) time.Time {
	return buildTime(epoch, ps.builtIn[x])
}
