package pages

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"tidings/db"
	"tidings/harvest"
	"tidings/internal/changetest"
)

var gardenWords = strings.Fields(`fern moss leaf stone path rain shade root seed bloom thorn vine bark pond reed
lichen clover nettle daisy thistle bramble hazel willow alder rowan`)

// lostPage is what the site answers for every address it does not have:
// its own title, "We looked everywhere", forty random words and three
// random links, new at every read.
func lostPage(n int) string {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	var ws []string
	for range 40 {
		ws = append(ws, gardenWords[r.IntN(len(gardenWords))])
	}
	var links []string
	for range 3 {
		links = append(links, fmt.Sprintf(`<li><a href="/%s-%d.html">%s</a></li>`, gardenWords[r.IntN(len(gardenWords))], r.IntN(1000), gardenWords[r.IntN(len(gardenWords))]))
	}
	return gardenPage(`<h2>We looked everywhere</h2><p>` + strings.Join(ws, " ") + `</p><p>Perhaps one of these?</p><ul>` + strings.Join(links, "") + `</ul>`)
}

// gardenPage is a page of a hand-made site whose every page has the same
// title.
func gardenPage(body string) string {
	return `<!doctype html><html><head><title>Fern's garden</title></head><body><header><p>Fern's garden</p><a href="/">home</a></header>` +
		body + `<footer><p>Grown by hand</p></footer></body></html>`
}

var gardenBeds = []string{"roses", "herbs", "ferns", "pond", "compost", "shed", "orchard", "meadow"}

// serveGarden serves a home page linking the eight beds and the
// neighbours' page, which is not written yet.
func serveGarden(s *watchSite) {
	var links []string
	for _, b := range append(slices.Clone(gardenBeds), "neighbors") {
		links = append(links, fmt.Sprintf(`<a href="/%s.html">%s</a>`, b, b))
	}
	s.set("/", gardenPage(`<h1>Welcome</h1><p>`+strings.Join(links, " ")+`</p>`))
	for _, b := range gardenBeds {
		s.set("/"+b+".html", gardenPage(`<h1>The `+b+`</h1><p>Notes on the `+b+` bed.</p>`))
	}
}

// TestSoftNotFoundWhoseTextVaries: a nine-page site whose pages all have
// one title answers 200 for every address it does not have, with "We
// looked everywhere" and random words and links. The page linked before
// it is written is not watched, nor anything its random links lead to,
// and makes no entry as its words change; once written, it is created.
func TestSoftNotFoundWhoseTextVaries(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	e.site.soft = lostPage
	serveGarden(e.site)
	e.follow("/")
	want := []string{"/"}
	for _, b := range gardenBeds {
		want = append(want, "/"+b+".html")
	}
	slices.Sort(want)
	if got := e.watched(); !slices.Equal(got, want) {
		t.Fatalf("watched %q, want the home page and the eight beds", got)
	}
	e.harvest()
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 0 {
		t.Errorf("the site's \"not found\" page made entries %q", fresh)
	}
	if got := e.watched(); !slices.Equal(got, want) {
		t.Errorf("watched %q after two harvests, want the home page and the eight beds", got)
	}
	e.site.set("/neighbors.html", gardenPage(`<h1>Our neighbours</h1><p>Ivy keeps bees next door.</p>`))
	e.harvest()
	if fresh := e.fresh(); !slices.Equal(fresh, []string{"created /neighbors.html"}) {
		t.Fatalf("entries %q, want the neighbours' page created", fresh)
	}
	changetest.Text(t, e.exported("/neighbors.html", "created"), "Fern's garden", db.TextChanged, nil, []string{"Our neighbours", "Ivy keeps bees next door."})
}
