package publish_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"tidings/publish"
)

// commitMsg is commit with a message of its own.
func commitMsg(t *testing.T, repo, date, msg string, files map[string]string) {
	t.Helper()
	writeSite(t, repo, files)
	git(t, repo, "", "add", "-A")
	git(t, repo, date, "commit", "-q", "-m", msg, "-m", "A body the note leaves out.")
}

// TestNotesFromCommits: in a git work tree, a change's note is the
// subject of the commit that made it, in the change list and the feed;
// a first run with --history tells each commit's change with the text it
// removed and added, read from git, and writes the same feed whenever it
// is rebuilt from the same commits, as a fresh checkout does at each run.
func TestNotesFromCommits(t *testing.T) {
	repo, site := gitRepo(t)
	files := map[string]string{}
	for rel, body := range feedSite() {
		files["site/"+rel] = body
	}
	commitMsg(t, repo, "2026-10-01T10:00:00Z", "Open the shrine", files)
	commitMsg(t, repo, "2026-10-05T10:00:00Z", "Whiskers moved to the sunny side", map[string]string{
		"site/cats.html": page("Cats of the Month", "", "Whiskers purrs on the sunny windowsill every afternoon.", "Tabby naps.", "Ginger hunts on the old porch at night.", "Adopt one today."),
	})
	o := publish.Options{Dir: site, Datetime: publish.DatetimeGit, History: 30 * 24 * time.Hour}
	publishAt(t, o, "2026-10-20T00:00:00Z")

	notes := notesOf(t, site, "resourcesync/changelist.xml")
	if notes[base+"cats.html"] != "Whiskers moved to the sunny side" || notes[base+"links.html"] != "Open the shrine" {
		t.Errorf("change list notes %q", notes)
	}
	f := readJSONFeed(t, site, "resourcesync/changes.json")
	if len(f.Items) != 8 || f.Items[0].Title != "Updated: Cats of the Month" || f.Items[0].Summary != "Whiskers moved to the sunny side" {
		t.Fatalf("feed from the commits: %+v", f.Items)
	}
	removed, added := marked(f.Items[0].ContentText)
	if !slices.Equal(removed, squashAll("Whiskers sleeps on the warm windowsill every afternoon.")) ||
		!slices.Equal(added, squashAll("Whiskers purrs on the sunny windowsill every afternoon.")) {
		t.Errorf("the commit's change reads as removing %q, adding %q:\n%s", removed, added, f.Items[0].ContentText)
	}
	atom, _ := os.ReadFile(filepath.Join(site, "resourcesync", "changes.atom"))

	// A fresh checkout: the documents are not there, and the run is a
	// first run again, a day later.
	if err := os.RemoveAll(filepath.Join(site, "resourcesync")); err != nil {
		t.Fatal(err)
	}
	publishAt(t, o, "2026-10-21T00:00:00Z")
	again, _ := os.ReadFile(filepath.Join(site, "resourcesync", "changes.atom"))
	if string(again) != string(atom) {
		t.Errorf("the feed rebuilt from the same commits differs:\n%s\n----\n%s", atom, again)
	}

	// Then a commit after the run: its subject is the note, unless --note
	// says otherwise for the run.
	commit(t, repo, "2026-10-22T10:00:00Z", nil)
	commitMsg(t, repo, "2026-10-22T11:00:00Z", "Fix the guestbook link", map[string]string{
		"site/links.html": page("Links", "", "A cat shrine", "The guestbook moved.", "Dogs of the valley"),
	})
	commitMsg(t, repo, "2026-10-22T12:00:00Z", "Gallery tweaks", map[string]string{
		"site/gallery/a.html": page("Gallery A", "", "A painting of Whiskers, framed."),
	})
	o.History = 0
	publishAt(t, o, "2026-10-23T00:00:00Z")
	notes = notesOf(t, site, "resourcesync/changelist.xml")
	if notes[base+"links.html"] != "Fix the guestbook link" || notes[base+"gallery/a.html"] != "Gallery tweaks" {
		t.Errorf("notes of the commits after the run: %q", notes)
	}
	f = readJSONFeed(t, site, "resourcesync/changes.json")
	if f.Items[0].Title != "Updated: Gallery A" || f.Items[0].Summary != "Gallery tweaks" || f.Items[1].Summary != "Fix the guestbook link" {
		t.Errorf("feed after the commits: %+v", f.Items[:2])
	}
}

// TestFirstRunFromCommitsPingsNothing: the changes a first run reads from
// the commits may all be known to the services already; only those a
// later run finds are news.
func TestFirstRunFromCommitsPingsNothing(t *testing.T) {
	repo, site := gitRepo(t)
	commitMsg(t, repo, "2026-10-01T10:00:00Z", "Open the shrine", map[string]string{"site/index.html": page("Home", "", "Hello.")})
	hub := newRecorder(t, 204)
	o := publish.Options{Dir: site, Datetime: publish.DatetimeGit, History: 30 * 24 * time.Hour,
		Pings: publish.PingOptions{Client: loopbackClient(), WebSubHub: hub.srv.URL}}
	res := publishAt(t, o, "2026-10-20T00:00:00Z")
	if res.Collections[0].Created != 1 || len(hub.got()) != 0 || len(res.Pings) != 0 {
		t.Fatalf("first run: %+v, hub heard %q", res.Collections[0], hub.got())
	}
	writeSite(t, site, map[string]string{"index.html": page("Home", "", "Hello again.")})
	res = publishAt(t, o, "2026-10-21T00:00:00Z")
	if len(hub.got()) != 3 || len(res.Pings) != 1 || res.Pings[0].Err != nil {
		t.Errorf("second run: hub heard %q, pings %v", hub.got(), res.Pings)
	}
}
