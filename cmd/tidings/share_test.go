package main

import (
	"strings"
	"testing"
)

// TestSiteShareIsASetting: --site-share comes from the flag or the
// environment, is named in the help with its default, and a value below
// zero is refused naming it.
func TestSiteShareIsASetting(t *testing.T) {
	t.Parallel()
	r := tidings(t, newEnv(t, "TIDINGS_SITE_SHARE", "-1"), "harvest")
	if r.code != 2 || !strings.Contains(r.stderr, "--site-share must be 0 (no limit) or more bytes, not -1") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, cmd := range []string{"serve", "harvest", "worker"} {
		r := tidings(t, newEnv(t), cmd, "--help")
		if !strings.Contains(r.stderr, "--site-share (TIDINGS_SITE_SHARE)") || !strings.Contains(r.stderr, "(default 104857600)") {
			t.Errorf("%s --help does not name --site-share with its default:\n%s", cmd, r.stderr)
		}
	}
}

// TestHarvestPrunesASitePastItsShare: tidings harvest, after its
// harvests, deletes the oldest changes of a site past its share however
// young, keeps the newest, and says so, and that the site is still past
// it when what it must keep is more.
func TestHarvestPrunesASitePastItsShare(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	before := exportChanges(t, env)
	perCollection := map[int64]int{}
	for _, c := range before {
		perCollection[c.CollectionID]++
	}
	r := tidings(t, env, "harvest", "--all", "--site-share", "1", "--keep-changes", "1")
	mustSucceed(t, r)
	for _, want := range []string{"oldest change(s) of 1 site(s) storing more than their share (--site-share 1 bytes)",
		"1 site(s) still store more than their share"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("harvest does not say %q:\n%s", want, r.stdout)
		}
	}
	after := exportChanges(t, env)
	if len(after) != len(perCollection) || len(after) >= len(before) {
		t.Errorf("%d changes of %d collections kept of %d, want each collection's newest alone", len(after), len(perCollection), len(before))
	}
	r = tidings(t, env, "harvest", "--all", "--site-share", "0", "--keep-changes", "1")
	mustSucceed(t, r)
	if strings.Contains(r.stdout, "share") {
		t.Errorf("with no share, harvest still speaks of one:\n%s", r.stdout)
	}
}
