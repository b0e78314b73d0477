package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Scenario 6's database: this many followed sites, each as a harvest
// leaves it.
const (
	memorySites = 10000
	// idleSettle is how long serve runs before its idle memory is read:
	// start-up done, the scheduler's first look at the sites taken.
	idleSettle = 5 * time.Second
)

// memory is scenario 6: serve's resident memory idle after start, then
// after wrk has asked for every feed of 10,000 followed sites, as feed
// readers do (gzip accepted).
func (h *harness) memory(ctx context.Context) ([]Row, error) {
	dbPath := filepath.Join(h.dir, "memory.db")
	fmt.Fprintf(h.stderr, "scenario 6: seeding %d sites\n", memorySites)
	start := time.Now()
	paths, err := seedSites(ctx, dbPath, memorySites)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(h.stderr, "  seeded in %.1f s\n", time.Since(start).Seconds())
	srv, err := startServe(ctx, h.bin, h.env(dbPath), filepath.Join(h.dir, "memory.log"))
	if err != nil {
		return nil, err
	}
	defer srv.close()
	time.Sleep(idleSettle)
	idle, _, err := srv.memory()
	if err != nil {
		return nil, err
	}
	script, err := writeRotation(h.dir, paths, h.load.threads)
	if err != nil {
		return nil, err
	}
	res, err := runWrk(ctx, h.load, wrkRun{url: srv.url("/"), script: script, header: "Accept-Encoding: gzip"}, nil)
	if err != nil {
		return nil, err
	}
	rss, peak, err := srv.memory()
	if err != nil {
		return nil, err
	}
	const scenario = "6. memory"
	return []Row{
		{scenario, fmt.Sprintf("idle %s after start, %s sites followed: %s RSS", secs(idleSettle), thousands(memorySites), mb(idle)), "< 60 MB", check(idle < 60e6)},
		{scenario, fmt.Sprintf("serving their %s feeds (%s): %s RSS after, %s at most", thousands(float64(len(paths))), res, mb(rss), mb(peak)), "< 300 MB", check(peak < 300e6)},
	}, nil
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/1e6) }

func secs(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

// writeRotation writes the paths and a wrk script that asks for them in
// turn, each of its threads from its own starting point, and returns the
// script's file name.
func writeRotation(dir string, paths []string, threads int) (string, error) {
	list := filepath.Join(dir, "paths.txt")
	if err := os.WriteFile(list, []byte(strings.Join(paths, "\n")+"\n"), 0o644); err != nil {
		return "", err
	}
	script := filepath.Join(dir, "rotate.lua")
	lua := fmt.Sprintf(`local paths = {}
for line in io.lines(%q) do paths[#paths + 1] = line end
local threads = 0
function setup(thread)
  thread:set("first", threads)
  threads = threads + 1
end
local i
function request()
  if i == nil then i = math.floor(first * #paths / %d) end
  i = i %% #paths + 1
  return wrk.format(nil, paths[i])
end
`, list, max(threads, 1))
	return script, os.WriteFile(script, []byte(lua), 0o644)
}
