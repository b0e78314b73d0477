package pages

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
	"tidings/pagetext"
)

// bigPage is a page of about size bytes of text, in paragraphs of its
// own (lines most pages share are left out before rules are matched),
// its words nested in depth divs.
func bigPage(title, news string, size, depth int) string {
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><title>" + title + "</title></head><body>")
	sb.WriteString(strings.Repeat("<div>", depth))
	sb.WriteString(fmt.Sprintf("<h1>%s</h1><p>%s</p>", title, news))
	for k := 0; sb.Len() < size; k++ {
		sb.WriteString("<p>" + strings.Repeat(fmt.Sprintf("%s flies at night and rests by day, note %d; ", title, k), 10) + "</p>")
	}
	sb.WriteString(strings.Repeat("</div>", depth) + "</body></html>")
	return sb.String()
}

// TestCostlyRulesAreSwitchedOff: rules stored before rules were bounded
// (a selector of fourteen parts, patterns of 2,002 instructions), and
// patterns within the bounds that cost more than a harvest allows, on 20
// pages of 250 KiB nested 60 divs deep: the harvest ends, finds every
// page's edit, and switches those rules off, each with a reason on the
// site's page; a selector within the bounds walks the pages and stays.
func TestCostlyRulesAreSwitchedOff(t *testing.T) {
	const budget = 16 << 20
	e := newWatchEnv(t, harvest.Options{RuleBudget: budget})
	// Each page's news is its own, so that no line changes on every page
	// at once (which the harvest learns is noise).
	moths := strings.Fields("luna atlas comet rosy emperor hawk tiger ermine puss kitten " +
		"lappet eggar oak pine lime poplar elephant privet bedstraw convolvulus")
	serve := func(v int) {
		var links strings.Builder
		for i, m := range moths {
			fmt.Fprintf(&links, `<a href="/p%d.html">page %d</a> `, i, i)
			news := "No " + m + " moth yet."
			if v > 1 {
				news = fmt.Sprintf("The %s moth came back (visit %s).", m, strings.Repeat("again ", v))
			}
			e.site.set(fmt.Sprintf("/p%d.html", i), bigPage("Moth "+m, news, 250<<10, 60))
		}
		e.site.set("/", "<!doctype html><title>Moths</title><h1>Moths</h1><p>"+links.String()+"</p>")
	}
	serve(1)
	e.follow("/")
	ctx := context.Background()
	site, err := e.store.SiteByURL(ctx, e.site.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	stale := []string{"x * * * * * * * * * * * * *"}
	costly := []string{}
	for i := range 5 {
		stale = append(stale, fmt.Sprintf("/.{0,1000}%c/", 'a'+i))
		// What no line of the pages holds: the patterns match nothing.
		costly = append(costly, fmt.Sprintf("/.{0,100}%c/", "%@#&="[i]))
	}
	add := func(kind, pattern string) {
		if _, err := e.store.AddIgnoreRule(ctx, site.ID, 0, kind, pattern, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	add(db.IgnoreCSS, stale[0])
	add(db.IgnoreCSS, "* * * * h1")
	for _, p := range append(stale[1:], costly...) {
		add(db.IgnoreText, p)
	}

	serve(2)
	e.harvest()
	if fresh := e.fresh(); len(fresh) != 20 {
		t.Errorf("%d entries, want the 20 pages updated: %q", len(fresh), fresh)
	}
	rules, err := e.store.IgnoreRules(ctx, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]string{}
	for _, r := range rules {
		off[r.Pattern] = r.OffReason
	}
	for _, p := range stale {
		if !strings.Contains(off[p], "tidings no longer takes this rule") {
			t.Errorf("%s: reason %q, want it switched off as outside the bounds", p, off[p])
		}
	}
	for _, p := range costly {
		if !strings.Contains(off[p], "--rule-budget") {
			t.Errorf("%s: reason %q, want it switched off for its cost", p, off[p])
		}
	}
	if r := off["* * * * h1"]; r != "" {
		t.Errorf("the bounded selector was switched off: %s", r)
	}
	// The selector left each page's title out: the news, its first line
	// before, is its first line now.
	var d pagetext.Diff
	if err := json.Unmarshal([]byte(e.exported("/p3.html", "updated").Diff), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Ops) == 0 || d.Ops[0].Equal != 0 || len(d.Ops[0].Del) != 1 || d.Ops[0].Del[0] != "No rosy moth yet." {
		t.Errorf("diff %+v, want it to begin with the news, the title left out", d.Ops[:1])
	}

	// Rules switched off cost the next harvest nothing, and stay off.
	serve(3)
	e.harvest()
	rules, _ = e.store.IgnoreRules(ctx, site.ID)
	for _, r := range rules {
		if r.OffReason != off[r.Pattern] {
			t.Errorf("%s: reason became %q", r.Pattern, r.OffReason)
		}
	}
}
