// Command fleetsim serves N synthetic ResourceSync sites on loopback, each
// on its own port, for benchmarking tidings. The documents follow from
// --seed alone. It prints one site URL a line, then "ready", and reads
// commands on standard input, one a line:
//
//	mutate [RATE]  change round(N × RATE) sites (default --mutate)
//	revise RATE    with --pages, change the text of round(pages × RATE) of
//	               every site's pages, each with an updated entry
//	stats          print the request/byte counts as one JSON object
//	reset          zero the counts
//	quit           stop (as does the end of input or an interrupt)
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
	recent := fs.Bool("recent", false, "date the change lists in the days before today rather than from 2026-01-01, so that a first harvest takes them as new")
	verbose := fs.Bool("log", false, "print every request (site, method, path, status, bytes) on standard error")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || sh.Collections < 1 || sh.Lists < 1 || sh.Entries < 1 || *rate < 0 || *rate > 1 || sh.RobotsBytes < 0 || sh.RobotsBytes > 64<<20 || sh.Pages < 0 || sh.Pages > 1e6 {
		return fmt.Errorf("fleetsim: --sites, --collections, --lists and --entries must be positive, --mutate within [0, 1], --robots-bytes within [0, 64 MiB] and --pages within [0, 1000000]")
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
	for _, u := range f.URLs() {
		fmt.Fprintln(stdout, u)
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
