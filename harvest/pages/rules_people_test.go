package pages

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/harvest"
)

// TestRulesOfTwoPeople: Ann and Bob follow one site. Ann's text rule
// leaves the mood line out, Bob's CSS selector the webring's banner. At
// the next harvest the mood changes on one page, the banner on another,
// and a third gets a real edit: the site's feed has all three (nobody
// gave a rule for everyone), Ann's feed, digest entry and notifications
// have the banner's page and the edit, Bob's the mood's page and the
// edit. Neither sees, nor can remove, the other's rule.
func TestRulesOfTwoPeople(t *testing.T) {
	e := newWatchEnv(t, harvest.Options{})
	ctx := context.Background()
	serve := func(v int) {
		links := `<a href="/mood.html">mood</a> <a href="/ring.html">ring</a> <a href="/edit.html">edit</a>`
		e.site.set("/", ringPage("Moth pages", "Kestrel's moths", "calm", "My moth pages: "+links))
		mood, ring, body := "calm", "Kestrel's moths", []string{"Notes on moths."}
		if v > 1 {
			mood, ring, body = "sleepy", "Owl's moths", append(body, "The luna moth came back in November.")
		}
		e.site.set("/mood.html", ringPage("Mood", "Kestrel's moths", mood, "A page of moods."))
		e.site.set("/ring.html", ringPage("Ring", ring, "calm", "A page with a webring."))
		e.site.set("/edit.html", ringPage("Edit", "Kestrel's moths", "calm", body...))
	}
	serve(1)
	e.follow("/")
	site, err := e.store.SiteByURL(ctx, e.site.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	var ann, bob db.User
	for _, u := range []*db.User{&ann, &bob} {
		name := map[*db.User]string{&ann: "ann", &bob: "bob"}[u]
		if *u, err = e.store.CreateUser(ctx, name, "x", "token-"+name, ""); err != nil {
			t.Fatal(err)
		}
		if err := e.store.Follow(ctx, u.ID, site.ID); err != nil {
			t.Fatal(err)
		}
	}
	annRule, err := e.store.AddIgnoreRule(ctx, site.ID, ann.ID, db.IgnoreText, "mood:", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	bobRule, err := e.store.AddIgnoreRule(ctx, site.ID, bob.ID, db.IgnoreCSS, ".webring", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	runsBefore, err := e.store.NotifyRuns(ctx, db.NotifyScope{UserID: ann.ID}, 100)
	if err != nil {
		t.Fatal(err)
	}
	last := slices.Max(append(runsBefore, 0))

	serve(2)
	e.harvest()
	base := e.site.srv.URL
	paths := func(cs []db.Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, strings.TrimPrefix(c.URL, base))
		}
		slices.Sort(out)
		return out
	}
	feed := func(scope db.Scope) []string {
		cs, err := e.store.FeedChanges(ctx, scope, 50)
		if err != nil {
			t.Fatal(err)
		}
		var updated []db.Change
		for _, c := range cs {
			if c.Kind == "updated" {
				updated = append(updated, c)
			}
		}
		return paths(updated)
	}
	for _, w := range []struct {
		who   string
		scope db.Scope
		want  []string
	}{
		{"the site's feed", db.Scope{SiteID: site.ID}, []string{"/edit.html", "/mood.html", "/ring.html"}},
		{"Ann's feed", db.Scope{UserID: ann.ID}, []string{"/edit.html", "/ring.html"}},
		{"Bob's feed", db.Scope{UserID: bob.ID}, []string{"/edit.html", "/mood.html"}},
	} {
		if got := feed(w.scope); !slices.Equal(got, w.want) {
			t.Errorf("%s: updated %q, want %q", w.who, got, w.want)
		}
	}
	digests, err := e.store.Digests(ctx, db.Scope{UserID: ann.ID}, 1)
	if err != nil || len(digests) != 1 {
		t.Fatalf("Ann's digests: %v, %v", digests, err)
	}
	if got := paths(digests[0].Changes); !slices.Equal(got, []string{"/edit.html", "/ring.html"}) || digests[0].Run.Changes != 2 {
		t.Errorf("Ann's digest entry lists %q of %d changes, want the edit and the ring, 2", got, digests[0].Run.Changes)
	}
	notes, total, err := e.store.NotifyChanges(ctx, db.NotifyScope{UserID: bob.ID, AfterRun: last}, 50)
	if err != nil {
		t.Fatal(err)
	}
	var told []db.Change
	for _, n := range notes {
		told = append(told, n.Change)
	}
	if got := paths(told); !slices.Equal(got, []string{"/edit.html", "/mood.html"}) || total != 2 {
		t.Errorf("Bob is told of %q (%d in all), want the edit and the mood", got, total)
	}

	// Each sees the rules for everyone and their own, and removes only
	// their own.
	for _, w := range []struct {
		u    db.User
		mine db.IgnoreRule
	}{{ann, annRule}, {bob, bobRule}} {
		rules, err := e.store.RulesFor(ctx, site.ID, w.u.ID)
		if err != nil || len(rules) != 1 || rules[0].ID != w.mine.ID {
			t.Errorf("%s sees rules %+v (%v), want only their own", w.u.Name, rules, err)
		}
	}
	if err := e.store.DeleteIgnoreRule(ctx, site.ID, ann.ID, bobRule.ID); err == nil {
		t.Error("Ann removed Bob's rule")
	}
	if rules, _ := e.store.IgnoreRules(ctx, site.ID); len(rules) != 2 {
		t.Errorf("rules left %+v, want both", rules)
	}
}
