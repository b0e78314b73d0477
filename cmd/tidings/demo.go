package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"tidings/accounts"
	"tidings/db"
	"tidings/feedbuild"
	"tidings/follow"
	"tidings/internal/demosite"
	"tidings/web"
	"tidings/worker"
)

// demoUser is the account the demo makes and follows the sample sites for.
const demoUser = "demo"

// demoChanges is how many pages of each sample site change each time.
const demoChanges = 2

// cmdDemo runs serve on a temporary database, with sample sites on
// loopback that it follows for a demo account and that change every
// --demo-every, so that feeds fill in while one watches. The database is
// removed when it stops.
func cmdDemo(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	// Every setting the demo does not take as a flag has serve's default.
	var cfg Config
	defaults := flag.NewFlagSet("defaults", flag.ContinueOnError)
	globalFlags(defaults, &cfg)
	feedFlags(defaults, &cfg)
	retentionFlag(defaults, &cfg)

	fs := newFlagSet("demo [--addr HOST:PORT] [--demo-every DURATION]", stderr)
	addressFlags(fs, &cfg)
	fs.StringVar(&cfg.LogFormat, "log-format", "text", "format of the log on standard error: text or json")
	every := fs.Duration("demo-every", time.Minute, "how often the sample sites change and are harvested")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	if *every < time.Second {
		return usageError{fmt.Sprintf("--demo-every must be at least 1s, not %s", *every)}
	}
	// Said before anything is set up, with what to do about it.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("demo: cannot listen on %s (%v); give a free address with --addr, such as --addr 127.0.0.1:8181", cfg.Addr, err)
	}
	ln.Close()
	dir, err := os.MkdirTemp("", "tidings-demo-")
	if err != nil {
		return fmt.Errorf("demo: a temporary directory for the database: %w", err)
	}
	defer os.RemoveAll(dir)
	cfg.DB = filepath.Join(dir, "tidings.db")
	cfg.MayCreate = true
	// The sample sites are on 127.0.0.1, which the address policy refuses
	// unless told; the client has no allowance for one host alone.
	cfg.AllowPrivate = true
	cfg.Interval = *every
	cfg.HostDelay = 0
	cfg.serves = true
	// The demo's e-mail and pushes go to a mailbox of its own on
	// loopback, which its mailbox page shows: no mail server needed.
	mailbox, err := demosite.StartMailbox()
	if err != nil {
		return err
	}
	defer mailbox.Close()
	cfg.SMTPURL, cfg.MailFrom = mailbox.SMTPURL(), demoMailFrom
	a, err := openApp(ctx, cfg, stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	defer a.store.Close()
	// The commands run beside the demo (tidings feeds --db …) print the
	// feed addresses it serves.
	if err := a.store.SetServedURL(ctx, a.cfg.BaseURL, time.Now()); err != nil {
		return err
	}
	a.log.Info("demo: fetching from loopback and private addresses is allowed, for the sample sites on 127.0.0.1; run serve for real use",
		"database", cfg.DB)

	sites, err := demosite.Start(time.Now())
	if err != nil {
		return err
	}
	defer sites.Close()
	user, password, err := a.demoAccount(ctx)
	if err != nil {
		return err
	}
	if err := a.demoNotifications(ctx, user, mailbox); err != nil {
		return err
	}
	followed := a.followDemoSites(ctx, user, sites)
	if len(followed) == 0 {
		return errors.New("demo: none of the sample sites could be followed")
	}
	changing, stop := context.WithCancel(ctx)
	defer stop()
	go sites.Run(changing, demoChanges, *every)

	// Closed: with loopback and private addresses allowed, only the
	// person who started the demo, who has its password, may add sites.
	return a.serve(ctx, serveOptions{
		workers: worker.DefaultWorkers, registration: accounts.RegistrationClosed, maxPending: follow.DefaultMaxPendingDiscoveries,
		quotas: quotas{follow.DefaultMaxSitesPerUser, follow.DefaultHarvestsPerHour, follow.DefaultMaxStoredPerUser}, tick: min(*every/2, schedulerTick),
		mailbox: func() []web.Mail { return demoMail(mailbox) }, digestEvery: *every,
		listening: func(addr net.Addr) {
			out := newTermWriter(stdout)
			fmt.Fprintf(out, "\ntidings demo: open %s in a browser and sign in as %q with the password %q.\n", a.cfg.BaseURL, demoUser, password)
			fmt.Fprintf(out, "It follows %d sample site(s) on 127.0.0.1 whose pages change every %s; harvests follow them.\n", len(followed), *every)
			fmt.Fprintf(out, "Everything the demo account follows, for a feed reader on this machine:\n  %s\n",
				a.cfg.BaseURL+feedbuild.UserFeedPath(user.FeedToken))
			for _, s := range followed {
				fmt.Fprintf(out, "%s (%s):\n  %s\n", s.Title, s.URL, a.cfg.BaseURL+feedbuild.SiteFeedPath(s))
			}
			fmt.Fprintln(out, "Each feed also has one entry per changed page: add ?entries=page to its address.")
			fmt.Fprintf(out, "The demo account's e-mail digests and pushes, one round of changes after another, arrive in the demo's own mailbox:\n  %sdemo/mailbox\n", a.cfg.BaseURL)
			fmt.Fprintf(out, "The database is %s; it is removed when the demo stops (Ctrl-C).\n\n", cfg.DB)
		},
	}, stdout)
}

// demoMailFrom and demoMailTo are the demo's sender and the demo
// account's address, which its own mailbox receives whatever they are.
const (
	demoMailFrom = "tidings-demo@localhost"
	demoMailTo   = "demo@localhost"
)

// demoNotifications gives the demo account a confirmed e-mail address and
// a push to the demo's mailbox, as a person sets them on the settings
// page; the confirmation is taken as given, the mailbox being the demo's.
func (a *app) demoNotifications(ctx context.Context, user db.User, mb *demosite.Mailbox) error {
	now := time.Now()
	hash := accounts.HashToken(accounts.NewToken())
	if err := a.store.RequestEmail(ctx, user.ID, demoMailTo, hash, now.Add(time.Hour)); err != nil {
		return err
	}
	if _, err := a.store.ConfirmEmail(ctx, hash, now); err != nil {
		return err
	}
	if err := a.store.SetDigestEvery(ctx, user.ID, db.EveryDaily); err != nil {
		return err
	}
	_, err := a.store.AddPushTarget(ctx, user.ID, mb.PushURL(), 0, now)
	return err
}

// demoMail is what the demo's mailbox holds, as the mailbox page shows it.
func demoMail(mb *demosite.Mailbox) []web.Mail {
	var out []web.Mail
	for _, m := range mb.Messages() {
		out = append(out, web.Mail{ID: m.ID, Push: m.Push, From: m.From, To: m.To, Subject: m.Subject, Date: m.Date,
			Text: m.Text, HTML: m.HTML, Received: m.Received})
	}
	return out
}

// demoAccount creates the demo account with a new random password.
func (a *app) demoAccount(ctx context.Context) (db.User, string, error) {
	password := accounts.NewToken()[:16]
	hash, err := accounts.HashPassword(password)
	if err != nil {
		return db.User{}, "", err
	}
	u, err := a.store.CreateUser(ctx, demoUser, hash, accounts.NewToken(), "")
	return u, password, err
}

// followDemoSites follows each sample site for user. A site of a kind
// tidings cannot follow yet is left out, and the log says so.
func (a *app) followDemoSites(ctx context.Context, user db.User, sites *demosite.Sites) []db.Site {
	var out []db.Site
	for _, s := range sites.All {
		rep, err := a.follow.Follow(ctx, s.URL)
		if rep == nil {
			a.log.Info("demo: a sample site is not followed", "site", s.URL, "name", s.Name, "error", err)
			continue
		}
		if err := a.store.Follow(ctx, user.ID, rep.Site.ID); err != nil && !errors.Is(err, db.ErrAlreadyExists) {
			a.log.Error("demo: follow a sample site", "site", s.URL, "error", err)
			continue
		}
		site := rep.Site
		if site.Title == "" {
			site.Title = s.Name
		}
		out = append(out, site)
	}
	return out
}
