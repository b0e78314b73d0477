package notify_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/internal/demosite"
	"tidings/notify"
)

// TestDigestsKeepToTheirOwn: a harvest changes two pages on each of two
// sites; two people follow one site each and each gets a digest of their
// own site's pages, titles and diffs in both parts, nothing of the
// other's, with the unsubscribe headers and links.
func TestDigestsKeepToTheirOwn(t *testing.T) {
	e := newEnv(t)
	ann := e.person("ann", demosite.ResourceSync)
	bob := e.person("bob", demosite.Sitemap)
	e.subscribe(ann, "ann@example.org")
	e.subscribe(bob, "bob@example.org")

	e.change(demosite.ResourceSync)
	e.change(demosite.Sitemap)
	// Not due yet: the first digest comes a day after the address.
	if rep := e.run(notify.RunOptions{}); rep.Digests != 0 {
		t.Fatalf("digests queued before their time: %+v", rep)
	}
	e.advance(25 * time.Hour)
	if rep := e.run(notify.RunOptions{}); rep.Digests != 2 || rep.Sent != 2 {
		t.Fatalf("Run = %+v, want 2 digests queued and sent", rep)
	}

	for _, c := range []struct {
		addr       string
		mine, not  *demosite.Site
		myPages    []string
		otherPages []string
	}{
		{"ann@example.org", e.sites.Of(demosite.ResourceSync), e.sites.Of(demosite.Sitemap),
			[]string{"Lantern Garden (edit 1)", "/about.html"}, []string{"Tide tables", "Paper Boat Almanac"}},
		{"bob@example.org", e.sites.Of(demosite.Sitemap), e.sites.Of(demosite.ResourceSync),
			[]string{"Paper Boat Almanac (edit 1)", "Tide tables (edit 1)", "/tides.html"}, []string{"Lantern", "Moon"}},
	} {
		got := e.mail.To(c.addr)
		if len(got) != 2 {
			t.Fatalf("%s got %d messages, want the confirmation and one digest", c.addr, len(got))
		}
		m := got[1]
		if os.Getenv("TIDINGS_SHOW_DIGEST") != "" {
			t.Logf("text part of the digest to %s:\n%s", c.addr, m.Text)
		}
		if !strings.HasPrefix(m.Header.Get("Content-Type"), "multipart/alternative") {
			t.Errorf("%s: Content-Type %q, want multipart/alternative", c.addr, m.Header.Get("Content-Type"))
		}
		for _, part := range []struct{ name, body string }{{"text", m.Text}, {"html", m.HTML}} {
			for _, title := range c.myPages {
				if !strings.Contains(part.body, title) {
					t.Errorf("%s's %s part lacks the page %q:\n%s", c.addr, part.name, title, part.body)
				}
			}
			for _, other := range c.otherPages {
				if strings.Contains(part.body, other) {
					t.Errorf("%s's %s part tells of the other person's %q", c.addr, part.name, other)
				}
			}
			if strings.Contains(part.body, c.not.URL) {
				t.Errorf("%s's %s part names the other site %s", c.addr, part.name, c.not.URL)
			}
			for _, word := range []string{"Removed: ", "Added: ", c.mine.URL, "http://tidings.test/site/", "http://tidings.test/settings", "http://tidings.test/unsubscribe?t="} {
				if !strings.Contains(part.body, word) {
					t.Errorf("%s's %s part lacks %q:\n%s", c.addr, part.name, word, part.body)
				}
			}
		}
		unsub := m.Header.Get("List-Unsubscribe")
		if !strings.HasPrefix(unsub, "<http://tidings.test/unsubscribe?t=") || !strings.HasSuffix(unsub, ">") {
			t.Errorf("%s: List-Unsubscribe %q", c.addr, unsub)
		}
		if p := m.Header.Get("List-Unsubscribe-Post"); p != "List-Unsubscribe=One-Click" {
			t.Errorf("%s: List-Unsubscribe-Post %q", c.addr, p)
		}
		if !strings.Contains(m.Text, strings.Trim(unsub, "<>")) {
			t.Errorf("%s: the text part's unsubscribe link is not the header's %s", c.addr, unsub)
		}
	}

	// The unsubscribe link's token alone turns ann's digest off, and only
	// hers; a token for bob's id with ann's signature is refused.
	annUnsub := strings.Trim(e.mail.To("ann@example.org")[1].Header.Get("List-Unsubscribe"), "<>")
	token := annUnsub[strings.Index(annUnsub, "?t=")+3:]
	forged := "2" + token[strings.Index(token, "."):]
	if _, err := e.n.Unsubscribe(e.ctx, forged); err != notify.ErrBadLink {
		t.Errorf("Unsubscribe(forged) = %v, want ErrBadLink", err)
	}
	if _, err := e.n.Unsubscribe(e.ctx, token); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"ann": db.EveryOff, "bob": db.EveryDaily} {
		u, _ := e.store.UserByName(e.ctx, name)
		s, _ := e.store.NotifySettingsOf(e.ctx, u.ID)
		if s.Every != want {
			t.Errorf("%s's digest is %s, want %s", name, s.Every, want)
		}
	}

	// Nothing new: --now sends nothing more.
	e.advance(25 * time.Hour)
	if rep := e.run(notify.RunOptions{AllDigests: true}); rep.Sent != 0 {
		t.Errorf("a run with nothing new sent %+v", rep)
	}
}
