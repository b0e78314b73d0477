package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// TestServedFeedsSayWhatChanged follows a site, changes one page's text
// and another's markup only, harvests, and reads serve's feeds back with a
// real feed parser in every format: the per-page entries are titled by the
// page's title and hold exactly the words added and removed, the digest
// says it in one line, and the export carries the same diff.
func TestServedFeedsSayWhatChanged(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	page := func(sentence, markup string) string {
		return `<html><head><title>Cats of the Month</title>` + markup + `</head><body><main><h2>This month</h2>
<p>` + sentence + `</p><p>Ginger chases the red dot across the hall.</p><ul><li>Whiskers</li><li>Mittens</li></ul></main></body></html>`
	}
	site.Set("/shrine/cats.html", page("Tabby sleeps all day by the window.", ""))
	site.Set("/shrine/friends.html", `<html><head><title>Friends</title></head><body><p>Friends of the shrine.</p></body></html>`)
	entry := func(path, kind, ago string) string {
		return `<url><loc>{{.Base}}` + path + `</loc><rs:md change="` + kind + `" datetime="{{ago "` + ago + `"}}"/></url>`
	}
	list := site.Get("/shrine/changes-current.xml")
	site.Set("/shrine/changes-current.xml", strings.Replace(list, "</urlset>",
		entry("/shrine/cats.html", "created", "3h")+entry("/shrine/friends.html", "created", "3h")+"</urlset>", 1))
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	// The harvest the follow left due reads the pages' first texts.
	mustSucceed(t, tidings(t, env, "harvest"))

	site.Set("/shrine/cats.html", page("Tabby purrs all day by the window.", ""))
	site.Set("/shrine/friends.html", `<html><head><title>Friends</title><link rel="stylesheet" href="new.css"></head><body><div class="box"><p>Friends of the shrine.</p></div></body></html>`)
	site.Set("/shrine/changes-current.xml", strings.Replace(list, "</urlset>",
		entry("/shrine/cats.html", "created", "3h")+entry("/shrine/friends.html", "created", "3h")+
			entry("/shrine/cats.html", "updated", "1m")+entry("/shrine/friends.html", "updated", "1m")+"</urlset>", 1))
	mustSucceed(t, tidings(t, env, "harvest", "--all"))

	base := strings.TrimSuffix(serveInProcess(t, env, "--no-scheduler"), "/")

	for _, ext := range []string{"atom", "rss", "json"} {
		f, err := gofeed.NewParser().ParseString(fetchBody(t, base+public(t, env["TIDINGS_DB"], "/feeds/1.")+ext+"?entries=page"))
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		items := map[string]*gofeed.Item{}
		for _, it := range f.Items {
			items[it.Title] = it
		}
		cats, links := items["Updated: Cats of the Month"], items["Updated: Friends"]
		if cats == nil || links == nil {
			t.Fatalf("%s: no entries titled by the pages' titles among %d", ext, len(f.Items))
		}
		body := unstyled(cats.Content + cats.Description)
		if !strings.Contains(body, "[<del>sleeps</del> → <ins>purrs</ins>]") ||
			strings.Contains(body, "Ginger chases") {
			t.Errorf("%s: the text diff is not exactly the words changed: %s", ext, body)
		}
		if body := links.Content + links.Description; !strings.Contains(body, "No change to the text") || strings.Contains(body, "<ins") {
			t.Errorf("%s: a markup-only change: %s", ext, body)
		}
		if created := items["Created: Cats of the Month"]; created == nil ||
			!strings.Contains(created.Content+created.Description, "Tabby sleeps all day by the window.") {
			t.Errorf("%s: the created page's entry lacks its opening text", ext)
		}
	}
	digest, err := gofeed.NewParser().ParseString(fetchBody(t, base+public(t, env["TIDINGS_DB"], "/feeds/1.atom")))
	if err != nil {
		t.Fatal(err)
	}
	if len(digest.Items) == 0 || !strings.Contains(digest.Items[0].Content, "Removed: Tabby sleeps all day by the window. Added: Tabby purrs all day by the window.") ||
		!strings.Contains(digest.Items[0].Content, "no change to the text") {
		t.Errorf("the newest digest entry does not say what changed: %+v", digest.Items[0])
	}
	var found bool
	r := tidings(t, env, "export", "changes")
	mustSucceed(t, r)
	for _, line := range lines(t, r.stdout) {
		var c struct {
			URL        string `json:"url"`
			Change     string `json:"change"`
			TextChange string `json:"text_change"`
			Diff       string `json:"diff"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(c.URL, "/shrine/cats.html") && c.Change == "updated" {
			found = true
			if c.TextChange != "changed" || !strings.Contains(c.Diff, "-Tabby sleeps all day by the window.\n+Tabby purrs all day by the window.") {
				t.Errorf("exported %+v", c)
			}
		}
	}
	if !found {
		t.Error("the export lacks the update")
	}
}

// waitHealthy waits until url answers 200, for at most 20 s.
func waitHealthy(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 in 20 s: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// unstyled drops the inline colours of a diff's <del> and <ins>.
func unstyled(content string) string {
	return regexp.MustCompile(` style="[^"]*"`).ReplaceAllString(content, "")
}
