package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"tidings/internal/fleetsite"
)

// bigListEntries is the sitemap protocol's limit of entries in one list.
const bigListEntries = 50_000

// recordedResync is the Python resync client's parse of the same
// 50,000-entry list, as issue 33 records it: the reference where the
// client is not installed.
const recordedResync = 3.1

// bigListFollowRows is scenario 1 as a person runs it: the `tidings
// follow` process of a site whose change list holds 50,000 new entries,
// from its start to its exit, beside the Python resync client's parse of
// the same file. The site serves its pages too, as a real one does: the
// follow leaves them to the harvest after it. Once at tidings' default
// politeness, which spaces the follow's requests (its discovery looks at
// every place a site may publish), once without, which leaves the work;
// on PostgreSQL too, with a server.
func (h *harness) bigListFollowRows(ctx context.Context) ([]Row, error) {
	var body []byte
	site, err := startSite(func(base string) http.HandlerFunc {
		body = fleetsite.BigChangeList(base, bigListEntries, time.Now().UTC())
		return bigListHandler(base, body)
	})
	if err != nil {
		return nil, err
	}
	defer site.close()
	list := filepath.Join(h.dir, "changelist.xml")
	if err := os.WriteFile(list, body, 0o644); err != nil {
		return nil, err
	}
	resync, measured := resyncParse(ctx, list)
	ref := fmt.Sprintf("the Python resync client's parse of the same file: %.2f s in this run", resync)
	if !measured {
		ref = fmt.Sprintf("the Python resync client is not installed here (pip install resync): its parse of the same list took %.1f s when issue 33 measured it", resync)
	}
	var rows []Row
	// The same targets hold the run without waits to account: it is
	// the work's own share, which the waits of the default politeness
	// (four requests at least, 250 ms apart) hide.
	fiveTimes := func(d time.Duration) (string, *bool) {
		return "≥ 5 × faster than resync", check(d.Seconds()*5 <= resync)
	}
	underASecond := func(d time.Duration) (string, *bool) {
		return "< 1.0 s", check(d < time.Second)
	}
	noWaits := []string{"--host-delay", "0s"}
	for _, run := range []struct {
		engine, scenario string
		args             []string
		target           func(time.Duration) (string, *bool)
	}{
		{"", "1. big change list, as a person runs it", nil, fiveTimes},
		{"", "1. big change list, as a person runs it", noWaits, fiveTimes},
		{"postgres", "1. big change list, as a person runs it (PostgreSQL)", nil, underASecond},
		{"postgres", "1. big change list, as a person runs it (PostgreSQL)", noWaits, underASecond},
	} {
		if run.engine == "postgres" && h.postgres == "" {
			continue
		}
		fmt.Fprintf(h.stderr, "scenario 1: tidings follow of the 50,000-entry list%s %s\n", strings.TrimPrefix(run.scenario, "1. big change list, as a person runs it"), strings.Join(run.args, " "))
		row, err := h.bigListFollow(ctx, site, run.engine, run.scenario, run.args)
		if err != nil {
			return nil, err
		}
		politeness := "tidings' default politeness"
		if len(run.args) > 0 {
			politeness = "`" + strings.Join(run.args, " ") + "`: no wait between two requests"
		}
		row.res.Figure = fmt.Sprintf("%s; %s; %s", row.res.Figure, politeness, ref)
		if run.target != nil {
			row.res.Target, row.res.Pass = run.target(row.wall)
		}
		rows = append(rows, row.res)
	}
	return rows, nil
}

type followRun struct {
	res  Row
	wall time.Duration
}

// bigListFollow runs one measured `tidings follow` of site into a fresh
// database (SQLite, or one of its own on the PostgreSQL server).
func (h *harness) bigListFollow(ctx context.Context, site *hostileSite, engine, scenario string, args []string) (followRun, error) {
	target := filepath.Join(h.dir, fmt.Sprintf("biglist-%d.db", time.Now().UnixNano()))
	if engine == "postgres" {
		u, drop, err := createDatabase(ctx, h.postgres, fmt.Sprintf("tidings_bench_biglist_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6))
		if err != nil {
			return followRun{}, err
		}
		defer drop()
		target = u
	} else {
		defer os.Remove(target)
	}
	env := h.env(target)
	site.reset()
	load := loadAverage()
	res, err := runMeasured(ctx, command(h.bin, env, append(append([]string{"follow"}, args...), site.base+"/big/")...), 5*time.Minute, rssGuard)
	if err != nil {
		return followRun{}, err
	}
	requests := site.requests.Load()
	stored, err := countChanges(ctx, h.bin, env)
	if err != nil {
		return followRun{}, err
	}
	fig := fmt.Sprintf("`tidings follow`, start to exit: %.2f s (%.2f s of CPU; load average %s at its start), peak RSS %s, %s; %d requests; %d changes stored",
		res.wall.Seconds(), res.cpu.Seconds(), load, mb(res.peak), res.ending(), requests, stored)
	pass := res.ok() && res.exit == 0 && stored == bigListEntries
	return followRun{res: Row{Scenario: scenario, Figure: fig, Pass: check(pass)}, wall: res.wall}, nil
}

// loadAverage is the machine's load average over the last minute: on a
// shared machine, the wall time of a run is worth what the others left
// it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// resyncParse times the Python resync client's parse of the change list
// at path, the process from start to exit; measured is false, with the
// recorded figure, when the client is not installed.
func resyncParse(ctx context.Context, path string) (secs float64, measured bool) {
	py := resyncPython(ctx)
	if py == "" {
		return recordedResync, false
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, py, "-c", "import sys\nfrom resync.change_list import ChangeList\nChangeList().parse(sys.argv[1])", path)
	if err := cmd.Run(); err != nil {
		return recordedResync, false
	}
	return time.Since(start).Seconds(), true
}

// bigListHandler serves a Source Description at the well-known place, one
// capability list naming the change list, the change list, and a
// small page at every address the list names.
func bigListHandler(base string, list []byte) http.HandlerFunc {
	const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`
	docs := map[string][]byte{
		"/.well-known/resourcesync": []byte(head + `  <rs:md capability="description"/>
  <url><loc>` + base + `/big/capabilitylist.xml</loc><rs:md capability="capabilitylist"/><rs:ln rel="describes" href="` + base + `/big/"/></url>
</urlset>
`),
		"/big/capabilitylist.xml": []byte(head + `  <rs:ln rel="up" href="` + base + `/.well-known/resourcesync"/>
  <rs:ln rel="describes" href="` + base + `/big/"/>
  <rs:md capability="capabilitylist"/>
  <url><loc>` + base + `/big/changelist.xml</loc><rs:md capability="changelist"/></url>
</urlset>
`),
		"/big/changelist.xml": list,
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if b, ok := docs[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "application/xml")
			w.Write(b)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/big/section-") && strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body><main><h1>%s</h1><p>A page of the big site, with a paragraph of its own.</p></main></body></html>",
				r.URL.Path, r.URL.Path)
			return
		}
		http.NotFound(w, r)
	}
}

// resyncPython is a Python that imports the resync client: the first
// python3 on PATH, or the system's, which a version manager's python3
// (pyenv) may hide along with the packages installed for it; "" when
// none does.
func resyncPython(ctx context.Context) string {
	var tried []string
	if py, err := exec.LookPath("python3"); err == nil {
		tried = append(tried, py)
	}
	tried = append(tried, "/usr/bin/python3")
	for _, py := range tried {
		if exec.CommandContext(ctx, py, "-c", "import resync").Run() == nil {
			return py
		}
	}
	return ""
}
