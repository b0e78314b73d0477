package demosite

// names are the sample sites' names, their home pages' titles.
var names = map[Kind]string{
	ResourceSync: "Lantern Garden",
	Sitemap:      "Paper Boat Almanac",
	Pages:        "Quiet Pond Notes",
}

type content struct {
	path, title string
	lines       []string
}

// contents are each site's pages as they start. Change replaces a page's
// last line, so each page's last line is the one that moves.
var contents = map[Kind][]content{
	ResourceSync: {
		{"/", "Lantern Garden", []string{"A small garden of paper lanterns, tended on weekends.", "Start with the about page, then wander."}},
		{"/about.html", "Lantern Garden", []string{"This garden publishes a ResourceSync change list, so every change reaches your feed reader as it happens.", "Tended by Ann."}},
		{"/lanterns/moon.html", "The Moon Lantern", []string{"Folded from rice paper, lit by one candle.", "It hangs by the gate."}},
		{"/lanterns/fox.html", "The Fox Lantern", []string{"An orange fox with a curled tail.", "Children like it best."}},
		{"/lanterns/heron.html", "The Heron Lantern", []string{"Tall and white, it stands in the pond.", "Its legs are bamboo."}},
		{"/guestbook.html", "Guestbook", []string{"Leave a note for the gardener.", "Last note: lovely foxes!"}},
		{"/news.html", "Garden news", []string{"The spring lanterns are being folded.", "Next: a lantern walk on Saturday."}},
	},
	Sitemap: {
		{"/", "Paper Boat Almanac", []string{"Tides, winds and paper boats: an almanac that lists its pages in a sitemap.", "Updated when the tide turns."}},
		{"/tides.html", "Tide tables", []string{"High water at the pier, low water at the mill.", "Today: high water at noon."}},
		{"/boats/schooner.html", "How to fold a schooner", []string{"Start from a square sheet, coloured side down.", "Step one: fold it in half."}},
		{"/boats/canoe.html", "How to fold a canoe", []string{"A long thin sheet makes the best canoe.", "Step one: crease the middle."}},
		{"/winds.html", "Winds of the week", []string{"A westerly most days, a sea breeze in the afternoon.", "Monday: calm."}},
		{"/regatta.html", "The bathtub regatta", []string{"Every boat floats for one minute, then we count.", "Winner so far: the blue canoe."}},
	},
	Pages: {
		{"/frogs.html", "Frogs of the pond", []string{"Three green frogs and one that is mostly brown.", "Seen today: two frogs."}},
		{"/lilies.html", "Water lilies", []string{"The lilies open at nine and close at five.", "Open now: four flowers."}},
		{"/dragonflies.html", "Dragonflies", []string{"Blue ones over the reeds, red ones over the stones.", "Counted today: seven."}},
		{"/weather.html", "Pond weather", []string{"The pond is calm when the wind is from the north.", "Now: ripples."}},
		{"/visitors.html", "Visitors", []string{"A heron, a kingfisher, and a very patient cat.", "Latest: the cat again."}},
	},
}

// edits are the lines Change writes as a page's last line, in turn.
var edits = []string{
	"A new lantern was hung by the path.",
	"The rain washed the stones clean.",
	"Someone left a paper crane on the bench.",
	"The evening light turned everything gold.",
	"Two visitors asked about the fox.",
	"The wind moved every lantern at once.",
	"A snail crossed the path very slowly.",
	"The pond reflected the whole sky.",
}
