// Command fleetsim serves N synthetic sites on loopback, each on its own
// port, for benchmarking tidings: ResourceSync sites and, with --kinds,
// static sites with a plain sitemap (sitemap) or with none (pages). The
// documents follow from --seed alone. It prints one site a line, then
// "ready", and reads commands on standard input, one a line:
//
//	mutate [RATE]  change round(N × RATE) sites (default --mutate)
//	revise RATE    change the text of round(pages × RATE) of every site's
//	               pages: on ResourceSync sites (with --pages) each with an
//	               updated entry, on the others in a new build of the site
//	revised        print the URLs of the pages the last revise changed, as
//	               one JSON array
//	stats          print the request/byte counts as one JSON object
//	reset          zero the counts
//	quit           stop (as does the end of input or an interrupt)
//
// A site's line is the URL to follow; in a fleet not only of ResourceSync
// sites, followed by its kind, its sitemap's variant (or "-"), whether its
// server sends validators and how many HTML pages it has:
//
//	http://127.0.0.1:40001/project/ sitemap mkdocs-project validators 112
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fleetsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("sites", 10, "number of sites")
	seed := fs.Int64("seed", 1, "seed the documents follow from")
	rate := fs.Float64("mutate", 0.1, "fraction of sites a mutate command changes")
	var sh Shape
	fs.IntVar(&sh.Collections, "collections", 2, "capability lists (collections) per site")
	fs.IntVar(&sh.Lists, "lists", 2, "change lists per collection's change list index")
	fs.IntVar(&sh.Entries, "entries", 200, "entries per change list")
	fs.IntVar(&sh.RobotsBytes, "robots-bytes", 0, "pad every robots.txt with Disallow rules to at least this many bytes")
	fs.IntVar(&sh.Pages, "pages", 0, "HTML pages (about 20 KiB each) each collection serves, which its change lists name in turn; 0 for none")
	kinds := fs.String("kinds", "resourcesync", "kinds of site and their weights, taken in turn: resourcesync, sitemap, pages; e.g. resourcesync=1,sitemap=2,pages=2")
	sitePages := fs.String("site-pages", "30-200", "MIN-MAX HTML pages of each sitemap or pages site, drawn from the seed")
	fs.Float64Var(&sh.NoValidators, "no-validators", 0.1, "fraction of sitemap and pages sites whose server sends no ETag or Last-Modified")
	recent := fs.Bool("recent", false, "date the change lists, and the first build of the other sites, in the days before today rather than from 2026-01-01, so that a first harvest takes them as new; each revise then dates a build a day later")
	politeness := fs.Duration("politeness", 0, "count the requests to a site that begin sooner than this after the one before (stats' too_close); 0 counts none")
	verbose := fs.Bool("log", false, "print every request (site, method, path, status, bytes) on standard error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || sh.Collections < 1 || sh.Lists < 1 || sh.Entries < 1 || *rate < 0 || *rate > 1 || sh.RobotsBytes < 0 || sh.RobotsBytes > 64<<20 || sh.Pages < 0 || sh.Pages > 1e6 {
		return fmt.Errorf("fleetsim: --sites, --collections, --lists and --entries must be positive, --mutate within [0, 1], --robots-bytes within [0, 64 MiB] and --pages within [0, 1000000]")
	}
	var err error
	if sh.Mix, err = parseMix(*kinds); err != nil {
		return err
	}
	lo, hi, _ := strings.Cut(*sitePages, "-")
	sh.MinPages, err = strconv.Atoi(lo)
	if err == nil {
		sh.MaxPages, err = strconv.Atoi(hi)
	}
	if err != nil || sh.MinPages < 10 || sh.MaxPages < sh.MinPages || sh.MaxPages > 10000 || sh.NoValidators < 0 || sh.NoValidators > 1 {
		return fmt.Errorf("fleetsim: --site-pages must be MIN-MAX within [10, 10000] and --no-validators within [0, 1]")
	}
	if *recent {
		// A day to spare before the lists, so none is dated in the future.
		sh.Epoch = time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -sh.Lists-1)
	}
	var log io.Writer
	if *verbose {
		log = stderr
	}
	f, err := StartFleet(*seed, *n, sh, log)
	if err != nil {
		return err
	}
	defer f.Close()
	f.SetPoliteness(*politeness)
	for _, line := range f.Lines() {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintln(stdout, "ready")
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		select {
		case <-ctx.Done():
			return printStats(stdout, f)
		case line, ok := <-lines:
			if !ok {
				return printStats(stdout, f)
			}
			if done, err := command(f, line, *rate, stdout); done || err != nil {
				return err
			}
		}
	}
}

func command(f *Fleet, line string, rate float64, stdout io.Writer) (bool, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return false, nil
	}
	switch fields[0] {
	case "mutate":
		if len(fields) > 1 {
			r, err := strconv.ParseFloat(fields[1], 64)
			if err != nil || r < 0 || r > 1 {
				fmt.Fprintf(stdout, "error: %q is not a rate within [0, 1]\n", fields[1])
				return false, nil
			}
			rate = r
		}
		fmt.Fprintf(stdout, "mutated %d\n", len(f.Mutate(rate)))
	case "revise":
		r := -1.0
		if len(fields) > 1 {
			r, _ = strconv.ParseFloat(fields[1], 64)
		}
		if r < 0 || r > 1 {
			fmt.Fprintln(stdout, "error: revise needs a rate within [0, 1]")
			return false, nil
		}
		fmt.Fprintf(stdout, "revised %d\n", f.Revise(r))
	case "revised":
		return false, json.NewEncoder(stdout).Encode(f.Revised())
	case "stats":
		return false, printStats(stdout, f)
	case "reset":
		f.Reset()
		fmt.Fprintln(stdout, "reset")
	case "quit":
		return true, printStats(stdout, f)
	default:
		fmt.Fprintf(stdout, "error: unknown command %q\n", fields[0])
	}
	return false, nil
}

func printStats(w io.Writer, f *Fleet) error {
	return json.NewEncoder(w).Encode(f.Stats())
}
