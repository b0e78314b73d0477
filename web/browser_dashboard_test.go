package web_test

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// newsItem is one entry of the dashboard's "what's new" as the browser
// shows it.
type newsItem struct {
	Page, Site, When, Gist string
	// Gists are the lines of the gist: what was removed and what added.
	Gists []string
	// Quiet is why the change comes first, from a site silent for long.
	Quiet string
	// Top is where the list starts, and SitesTop where the first site's
	// card does; GistLines is how many lines the gist takes.
	Top, SitesTop, GistLines float64
}

// checkWhatsNew reads the dashboard's "what's new": above the sites, the
// pages changed across everything followed, newest first, each titled
// and named by its site, its gist one line even on a phone, and a link
// to the person's feed of everything.
func (b *browser) checkWhatsNew() {
	b.t.Helper()
	var items []newsItem
	raw := b.eval(`JSON.stringify((() => {
		const list = document.querySelector("#whats-new"), card = document.querySelector("section.card");
		return [...document.querySelectorAll("#whats-new li.news-item")].map(li => {
			const gist = li.querySelector(".gist");
			return {
				Page: li.querySelector(".page").textContent,
				Site: li.querySelector(".news-head .muted a")?.textContent ?? "",
				When: li.querySelector("time").getAttribute("datetime"),
				Gist: gist?.textContent ?? "",
				Gists: [...li.querySelectorAll(".gist")].map(g => g.textContent),
				Quiet: li.querySelector(".quiet")?.textContent ?? "",
				Top: list.getBoundingClientRect().top, SitesTop: card.getBoundingClientRect().top,
				GistLines: gist ? Math.round(gist.getBoundingClientRect().height / parseFloat(getComputedStyle(gist).lineHeight)) : 0,
			};
		});
	})())`)
	if err := json.Unmarshal([]byte(raw), &items); err != nil {
		b.t.Fatalf("what's new: %v\n%s", err, raw)
	}
	if len(items) == 0 || len(items) > 20 {
		b.t.Fatalf("what's new lists %d changes, want 1 to 20:\n%s", len(items), b.describe())
	}
	if items[0].Top > items[0].SitesTop {
		b.t.Error("what's new comes after the sites")
	}
	// Changes from sites silent for long come first, saying why; each
	// part is newest first.
	var whens, quiet []time.Time
	sites := map[string]bool{}
	var pages []string
	for _, it := range items {
		when, err := time.Parse(time.RFC3339, it.When)
		if err != nil {
			b.t.Errorf("%q: time %q: %v", it.Page, it.When, err)
		}
		if it.Quiet != "" && !strings.HasPrefix(it.Quiet, "First change ") {
			b.t.Errorf("%q says %q of its quiet site", it.Page, it.Quiet)
		}
		// A quiet site's change of the last week heads the list.
		switch pinned := it.Quiet != "" && time.Since(when) < 7*24*time.Hour; {
		case pinned && len(whens) > 0:
			b.t.Errorf("%q, from a quiet site (%s), comes after others", it.Page, it.Quiet)
		case pinned:
			quiet = append(quiet, when)
		default:
			whens = append(whens, when)
		}
		sites[it.Site] = true
		pages = append(pages, it.Page)
		if it.Gist != "" && it.GistLines != 1 {
			b.t.Errorf("%q: its gist takes %.0f lines, want 1", it.Page, it.GistLines)
		}
	}
	// An edit says what it removed and what it added, each labelled,
	// each a line of its own.
	edits := 0
	for _, it := range items {
		if len(it.Gists) == 2 && strings.HasPrefix(it.Gists[0], "Removed: ") && strings.HasPrefix(it.Gists[1], "Added: ") {
			edits++
		}
	}
	if edits == 0 {
		b.t.Errorf("no change in what's new says what was removed and what added: %+v", items)
	}
	for _, part := range [][]time.Time{quiet, whens} {
		if !slices.IsSortedFunc(part, func(a, b time.Time) int { return b.Compare(a) }) {
			b.t.Errorf("what's new is not newest first: %v", part)
		}
	}
	// Both sites followed, and the showcase's titled pages.
	if !sites["The Cat Shrine"] || !sites["Fixture Site"] || !slices.Contains(pages, "Whiskers") {
		b.t.Errorf("what's new names sites %v, pages %q; want both sites and Whiskers", sites, pages)
	}
	if !strings.Contains(b.eval(`document.querySelector("#whats-new").textContent`), "your feed of everything you follow") ||
		b.eval(`document.querySelector("#whats-new a[href$='.atom']")?.href ?? ""`) != b.eval(`document.querySelector("#user-feed").value`) {
		b.t.Error("what's new does not link the person's feed of everything")
	}
}

// checkHistory reads a site's harvest history: one row per harvest (the
// follow, then the harvest asked for), none for the site alone, the
// failed collection's error named by it; on a phone each harvest's time,
// documents and changes share one line.
func (b *browser) checkHistory(phone bool) {
	b.t.Helper()
	if got := b.eval(`String(document.querySelectorAll("table.runs tbody tr").length)`); got != "2" {
		b.t.Errorf("the history has %s rows, want 2: the follow and the harvest asked for\n%s", got, b.eval(`document.querySelector("table.runs").innerText`))
	}
	history := b.eval(`document.querySelector("table.runs").innerText`)
	if strings.Contains(history, "the site") {
		b.t.Errorf("the history has a row for the site alone:\n%s", history)
	}
	if problem := b.eval(`document.querySelector("table.runs tbody tr td.problems .problem")?.textContent ?? ""`); !strings.Contains(problem, "/gallery/: ") ||
		!strings.Contains(problem, "returned 500 Internal Server Error") {
		b.t.Errorf("the failed harvest's error is %q, want it named by its collection", problem)
	}
	if !phone {
		return
	}
	line := b.eval(`(() => {
		const cells = [...document.querySelectorAll("table.runs tbody tr:last-child td")].slice(0, 3);
		return String(new Set(cells.map(c => Math.round(c.getBoundingClientRect().top))).size);
	})()`)
	if line != "1" {
		b.t.Errorf("on a phone a harvest's time, documents and changes take %s lines, want 1:\n%s", line, history)
	}
	if unit := b.eval(`document.querySelector("table.runs tbody tr td.n").innerText`); !strings.Contains(unit, "documents") {
		b.t.Errorf("on a phone the documents read %q, without their unit", unit)
	}
}
