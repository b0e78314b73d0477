package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	sites := []string{"https://a.example/", "https://a-site-with-a-very-long-name.example/and/a/path/too/"}
	harvest := func(tty bool) string {
		var out bytes.Buffer
		p := newProgress(&out, len(sites), tty)
		for _, s := range sites {
			p.start(s)
			p.done(func(w io.Writer) { fmt.Fprintf(w, "%s: report\n", s) })
		}
		p.close(len(sites))
		return out.String()
	}

	plain := harvest(false)
	if want := sites[0] + ": report\n" + sites[1] + ": report\n"; plain != want {
		t.Errorf("not on a terminal, output is\n%q\nwant only the reports\n%q", plain, want)
	}

	bar := harvest(true)
	for _, want := range []string{
		sites[0] + ": report\n", sites[1] + ": report\n", // the reports, whole
		"https://a.example/", "0/2", "1/2", // the bar: current site, sites done of all
		"https://a-site-with-a-very-long-name.ex… ", // cut to keep the bar on one line
		"Harvested 2 of 2 site(s) in 0s.\n",
	} {
		if !strings.Contains(bar, want) {
			t.Errorf("on a terminal, output lacks %q:\n%q", want, bar)
		}
	}
	// The elapsed time is in the bar.
	if !strings.Contains(bar, "[0s]") {
		t.Errorf("on a terminal, the bar shows no elapsed time:\n%q", bar)
	}
}
