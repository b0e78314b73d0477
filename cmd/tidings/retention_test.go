package main

import (
	"strings"
	"testing"
	"time"
)

// TestRetentionAndQuotaSettingsAreChecked: the retention and the quotas
// come from flags or the environment, are named in the help with their
// defaults, and bad values are refused naming the setting.
func TestRetentionAndQuotaSettingsAreChecked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"keep for less than a day", nil, []string{"harvest", "--keep-changes-for", "12h"}, "--keep-changes-for must be at least a day, not 12h0m0s"},
		{"keep for not a duration", []string{"TIDINGS_KEEP_CHANGES_FOR", "a year"}, []string{"serve"}, "TIDINGS_KEEP_CHANGES_FOR"},
		{"keep for days not a number", nil, []string{"serve", "--keep-changes-for", "xd"}, `"xd" is not a number of days`},
		{"keep no changes", []string{"TIDINGS_KEEP_CHANGES", "0"}, []string{"harvest"}, "--keep-changes must be at least 1, not 0"},
		{"sites quota below 0", nil, []string{"serve", "--max-sites-per-user", "-1"}, "--max-sites-per-user must be 0 (no limit) or more"},
		{"harvests quota below 0", []string{"TIDINGS_MAX_HARVEST_NOW_PER_HOUR", "-2"}, []string{"serve"}, "--max-harvest-now-per-hour must be 0 (no limit) or more"},
		{"storage quota not a number", []string{"TIDINGS_MAX_STORED_PER_USER", "1GB"}, []string{"serve"}, "TIDINGS_MAX_STORED_PER_USER"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tidings(t, newEnv(t, tt.env...), tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
	r := tidings(t, newEnv(t), "serve", "--help")
	for _, want := range []string{"--keep-changes-for (TIDINGS_KEEP_CHANGES_FOR)", "(default 365d)", "--keep-changes (TIDINGS_KEEP_CHANGES)",
		"--max-sites-per-user (TIDINGS_MAX_SITES_PER_USER)", "--max-harvest-now-per-hour (TIDINGS_MAX_HARVEST_NOW_PER_HOUR)",
		"--max-stored-per-user (TIDINGS_MAX_STORED_PER_USER)", "(default 1073741824)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, r.stderr)
		}
	}
	r = tidings(t, newEnv(t), "harvest", "--help")
	if !strings.Contains(r.stderr, "--keep-changes-for") || strings.Contains(r.stderr, "--max-sites-per-user") {
		t.Errorf("harvest --help has the retention, not the quotas:\n%s", r.stderr)
	}
}

// TestHarvestSweepsPastTheRetention: tidings harvest deletes, after its
// harvests, the changes older than --keep-changes-for but the newest
// --keep-changes of each collection, and says so.
func TestHarvestSweepsPastTheRetention(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))
	before := exportChanges(t, env)
	old := 0
	for _, c := range before {
		if at, err := time.Parse(time.RFC3339, c.Datetime); err == nil && time.Since(at) > 48*time.Hour {
			old++
		}
	}
	if old == 0 {
		t.Fatalf("the fixture site has no change older than two days: %v", before)
	}
	r := tidings(t, env, "harvest", "--all", "--keep-changes-for", "2d", "--keep-changes", "1")
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "older than 2 days beyond their newest 1") {
		t.Errorf("harvest does not say what it deleted:\n%s", r.stdout)
	}
	after := exportChanges(t, env)
	for _, c := range after {
		if at, err := time.Parse(time.RFC3339, c.Datetime); err != nil || time.Since(at) > 48*time.Hour {
			// The newest of a collection stays whatever its age.
			kept := 0
			for _, o := range after {
				if o.CollectionID == c.CollectionID {
					kept++
				}
			}
			if kept > 1 {
				t.Errorf("a change of %s is kept beside newer ones", c.Datetime)
			}
		}
	}
	if len(after) >= len(before) {
		t.Errorf("%d changes before the sweep, %d after", len(before), len(after))
	}
}
