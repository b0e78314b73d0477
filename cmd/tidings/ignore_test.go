package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestIgnoreRulesFromTheCommandLine(t *testing.T) {
	t.Parallel()
	site := newSite(t)
	env := newEnv(t)
	mustSucceed(t, tidings(t, env, "follow", site.URL))

	r := tidings(t, env, "ignore", site.URL, "--text", "Mood:", "--text", "/visited \\d+ times/", "--css", ".webring, #counter")
	mustSucceed(t, r)
	for _, want := range []string{
		site.URL + "/: counters and timestamps are always ignored; and:\n",
		"1\ttext\tMood:\n",
		"2\ttext\t/visited \\d+ times/\n",
		"3\tcss\t.webring, #counter\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("ignore printed no %q:\n%s", want, r.stdout)
		}
	}

	r = tidings(t, env, "ignore", site.URL, "--remove", "2")
	mustSucceed(t, r)
	if strings.Contains(r.stdout, "visited") || !strings.Contains(r.stdout, "Mood:") {
		t.Errorf("after removing rule 2:\n%s", r.stdout)
	}

	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--css", "div["}, 2, `not a CSS selector`},
		{[]string{"--text", "/(unclosed/"}, 2, `not a pattern tidings can read`},
		{[]string{"--text", "ab"}, 2, `needs 3 characters at least`},
		{[]string{"--text", "Mood:"}, 1, `already has that rule`},
		{[]string{"--remove", "99"}, 1, `has no rule 99`},
		{[]string{"--remove", "x"}, 2, `takes a rule's id`},
	} {
		r := tidings(t, env, append([]string{"ignore", site.URL}, c.args...)...)
		if r.code != c.code || !regexp.MustCompile(regexp.QuoteMeta(c.msg)).MatchString(r.stderr) {
			t.Errorf("ignore %q: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, c.code, c.msg)
		}
	}
	r = tidings(t, env, "ignore", "http://127.0.0.1:1/elsewhere")
	if r.code != 1 || !strings.Contains(r.stderr, "is not followed") {
		t.Errorf("a site not followed: exit %d, %q", r.code, r.stderr)
	}
}
