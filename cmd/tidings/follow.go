package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"tidings/db"
	"tidings/harvest"
	"tidings/worker"
)

// workersFlag registers --workers, shared by serve, follow and harvest.
func workersFlag(fs *flag.FlagSet) *int {
	return fs.Int("workers", worker.DefaultWorkers, "sites harvested at once; never two of one host")
}

func cmdFollow(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("follow [--user NAME] [--workers N] [--from FILE] URL...", stderr)
	globalFlags(fs, &cfg)
	cfg.MayCreate = true
	userName := fs.String("user", "", "also add the sites to this user's follows")
	from := fs.String("from", "", "also follow the addresses in this file, one a line (- reads standard input; blank lines and lines starting with # are skipped)")
	workers := workersFlag(fs)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if *workers < 1 {
		return usageError{"--workers must be at least 1"}
	}
	urls := fs.Args()
	if *from != "" {
		more, err := readAddresses(*from, stdin)
		if err != nil {
			return err
		}
		urls = append(urls, more...)
	}
	if len(urls) == 0 {
		return usageError{"follow needs a URL, or a file of them with --from"}
	}
	// The report printed says what went wrong: the log line a harvest
	// writes for serve's operator would say it again.
	a, err := openApp(ctx, cfg, stderr, slog.LevelError)
	if err != nil {
		return err
	}
	defer a.store.Close()
	var user db.User
	var others []db.User
	if *userName != "" {
		if user, err = a.store.UserByName(ctx, *userName); errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("there is no user %q; create one with: tidings user add %s", *userName, *userName)
		} else if err != nil {
			return err
		}
	} else {
		// With one account, whose follows are what it means; with
		// several, which one is not guessed.
		if others, err = a.store.Users(ctx); err != nil {
			return err
		}
		if len(others) == 1 {
			user, others = others[0], nil
		}
	}
	err = a.followAll(ctx, urls, user, *workers, stdout)
	if len(a.followed) > 0 {
		a.sayFeedBase(stdout)
	}
	if user.ID == 0 {
		if nerr := a.sayUnfollowed(ctx, stdout, others); nerr != nil {
			return errors.Join(err, nerr)
		}
	}
	return err
}

// sayUnfollowed tells, after a follow without an account, which of the
// sites no account follows: nobody sees them on a dashboard or in a user
// feed, only at their feed addresses.
func (a *app) sayUnfollowed(ctx context.Context, stdout io.Writer, users []db.User) error {
	followers, err := a.store.Followers(ctx)
	if err != nil {
		return err
	}
	stdout = newTermWriter(stdout)
	for _, s := range a.followed {
		if followers[s.ID] > 0 {
			continue
		}
		fmt.Fprintf(stdout, "No account follows %s: its feeds are served at the addresses above", s.URL)
		if len(users) == 0 {
			fmt.Fprintln(stdout, "; create an account with tidings user add NAME, then follow it with --user NAME.")
			continue
		}
		names := make([]string, len(users))
		for i, u := range users {
			names[i] = u.Name
		}
		fmt.Fprintf(stdout, "; add it to an account with --user NAME (%s).\n", strings.Join(names, ", "))
	}
	return nil
}

// followAll follows urls, workers at a time, printing each site's report
// as it is done (under a progress bar on a terminal when there are
// several). One address's failure is returned as it is; of several, they
// are counted.
func (a *app) followAll(ctx context.Context, urls []string, user db.User, workers int, stdout io.Writer) error {
	var prog *progress
	if len(urls) > 1 {
		prog = newProgress(stdout, len(urls), isTerminal(stdout))
	} else {
		prog = newProgress(stdout, 1, false)
	}
	var errs []error
	done := 0
	err := a.follow.FollowAll(ctx, urls, worker.Batch{
		Workers: workers,
		// Leased in the database: serve and worker processes may
		// harvest the same hosts meanwhile.
		Pool:    a.sharedPool(nil),
		Started: prog.start,
		Done: func(u string, rep *harvest.SiteReport, err error) {
			done++
			prog.done(func(w io.Writer) {
				if err = a.printFollow(ctx, w, rep, err, user); err != nil {
					if len(urls) > 1 && (rep == nil || rep.Run.Error == "") {
						fmt.Fprintf(w, "%s: problem: %v\n", u, err)
					}
					errs = append(errs, err)
				}
			})
		},
	})
	prog.close(done)
	switch {
	case err != nil:
		return err
	case len(urls) == 1 && len(errs) == 1:
		return errs[0]
	case len(errs) > 0:
		return fmt.Errorf("%d of %d site(s) could not be followed", len(errs), len(urls))
	}
	return nil
}

// printFollow prints what following one site did and adds it to user's
// follows; it returns what went wrong, already-followed aside.
func (a *app) printFollow(ctx context.Context, w io.Writer, rep *harvest.SiteReport, err error, user db.User) error {
	if errors.Is(err, db.ErrAlreadyExists) {
		if rep != nil {
			fmt.Fprintf(w, "%s is already followed; harvested it now.\n", rep.Site.URL)
		}
		err = stripExists(err)
	}
	if rep == nil {
		return err
	}
	a.followed = append(a.followed, rep.Site)
	a.printReport(w, rep, true)
	if user.ID == 0 {
		// Followed again by the command line itself: harvested again.
		if rerr := a.store.ResumeSite(ctx, rep.Site.ID); rerr != nil {
			return errors.Join(err, rerr)
		}
	}
	if user.ID != 0 {
		if ferr := a.store.Follow(ctx, user.ID, rep.Site.ID); ferr == nil {
			fmt.Fprintf(w, "%s now follows %s.\n", user.Name, rep.Site.URL)
		} else if !errors.Is(ferr, db.ErrAlreadyExists) {
			return errors.Join(err, ferr)
		}
	}
	return err
}

// readAddresses reads the addresses of --from: one a line, from the file
// named, or standard input for "-".
func readAddresses(name string, stdin io.Reader) ([]string, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("--from: %w", err)
		}
		defer f.Close()
		r = f
	}
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--from %s: %w", name, err)
	}
	return out, nil
}
