package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"tidings/accounts"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/metrics"
	"tidings/notify"
	"tidings/sitecheck"
	"tidings/web"
	"tidings/worker"
)

// schedulerTick is how often serve looks for sites that are due.
const schedulerTick = time.Minute

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("serve", stderr)
	globalFlags(fs, &cfg)
	addressFlags(fs, &cfg)
	cfg.MayCreate = true
	feedFlags(fs, &cfg)
	retentionFlag(fs, &cfg)
	notifyFlags(fs, &cfg)
	noScheduler := fs.Bool("no-scheduler", false, "run only the web server: no scheduler, discoveries, harvests or notifications (tidings worker runs them)")
	workers := workersFlag(fs)
	metricsToken := fs.String("metrics-token", "", "bearer token /metrics requires (default: /metrics is open)")
	registration := fs.String("registration", accounts.RegistrationInvite, "who may sign up: open, invite (the first account, then invite links) or closed (tidings user add only)")
	maxPending := fs.Int("max-pending-discoveries", follow.DefaultMaxPendingDiscoveries, "sites one person may have waiting to be discovered at once; an import over it queues what fits")
	q := quotaFlags(fs)
	trusted := fs.String("trusted-proxies", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed (rate limits, logs)")
	demo := fs.Bool("demo", false, "run tidings demo instead: sample sites on loopback and a temporary database (it takes --addr, --log-format and --demo-every)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	if *demo {
		return cmdDemo(ctx, demoArgs(args), getenv, stdout, stderr)
	}
	proxies, err := parseCIDRs(*trusted)
	if err != nil {
		return usageError{err.Error()}
	}
	switch *registration {
	case accounts.RegistrationOpen, accounts.RegistrationInvite, accounts.RegistrationClosed:
	default:
		return usageError{fmt.Sprintf("--registration must be open, invite or closed, not %q", *registration)}
	}
	if err := errors.Join(cfg.validateFeeds(), cfg.validateRetention()); err != nil {
		return usageError{err.Error()}
	}
	if *workers < 1 {
		return usageError{"--workers must be at least 1"}
	}
	if *maxPending < 1 {
		return usageError{"--max-pending-discoveries must be at least 1"}
	}
	if err := q.validate(); err != nil {
		return usageError{err.Error()}
	}
	cfg.serves = true
	a, err := openApp(ctx, cfg, stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	defer a.store.Close()
	// The commands that print feed addresses or send links use it when
	// they are not given one: an OPML export must name the feeds where
	// readers reach them. One made of --addr is kept apart, never in
	// place of one given: those commands may then warn that it is a
	// guess, or refuse it (tidings notify).
	record := a.store.SetPublicURL
	if !a.cfg.baseURLGiven {
		record = a.store.SetServedURL
	}
	if err := record(ctx, a.cfg.BaseURL, time.Now()); err != nil {
		return err
	}
	return a.serve(ctx, serveOptions{
		noScheduler: *noScheduler, workers: *workers, metricsToken: *metricsToken, registration: *registration,
		maxPending: *maxPending, quotas: *q, proxies: proxies, tick: schedulerTick,
	}, stdout)
}

// demoArgs are serve's arguments without --demo, for cmdDemo.
func demoArgs(args []string) []string {
	var out []string
	for _, a := range args {
		switch a {
		case "--demo", "-demo", "--demo=true", "-demo=true", "--demo=1", "-demo=1":
			continue
		}
		out = append(out, a)
	}
	return out
}

// serveOptions are serve's own settings, beside Config's.
type serveOptions struct {
	noScheduler  bool
	workers      int
	metricsToken string
	registration string
	maxPending   int
	quotas       quotas
	proxies      []*net.IPNet
	tick         time.Duration // how often the scheduler looks for due sites
	// listening, when set, is called once serve listens, with its address.
	listening func(addr net.Addr)
	// mailbox, when set, is the demo's mailbox, which its page shows.
	mailbox func() []web.Mail
	// digestEvery, when set, sends every digest of what is new this
	// often, whatever each person's schedule: the demo's round of changes.
	digestEvery time.Duration
}

// serve runs the web server and, unless noScheduler, the background
// work (see work) until ctx ends.
func (a *app) serve(ctx context.Context, so serveOptions, stdout io.Writer) error {
	// One client and one harvester for everything serve fetches, so the
	// metrics see every fetch and every harvest.
	m := metrics.New()
	co := a.cfg.clientOptions()
	co.OnResponse = m.OnResponse
	client := fetch.NewClient(co)
	ho := a.cfg.harvestOptions(a.log)
	ho.AfterHarvest = m.AfterHarvest
	if a.cfg.WebSubHub != "" {
		p, err := newPinger(ctx, a, client)
		if err != nil {
			return err
		}
		defer p.wait()
		ho.AfterHarvest = afterHarvests(ho.AfterHarvest, p.afterHarvest)
	}
	// One host pool for the scheduler and the discoveries people ask
	// for, shared through the database with every other process: never
	// two of them on one host at once. Without the scheduler, what
	// people ask for is left in the database for the workers.
	pool := a.sharedPool(client)
	fo := so.quotas.options()
	fo.MaxPendingDiscoveries, fo.Pool, fo.NoBackground = so.maxPending, pool, so.noScheduler
	a.setHarvester(harvest.New(client, a.store, ho), fo)
	var sched *worker.Scheduler
	opts := web.Options{
		BaseURL: a.cfg.BaseURL, Logger: a.log, Follow: a.follow, Checker: sitecheck.New(a.harvester).WithHistory(a.store), Registration: so.registration,
		FeedEntries: a.cfg.FeedEntries, FailingAfter: a.cfg.FailingAfter, HubURL: a.cfg.WebSubHub,
		Metrics: m, MetricsToken: so.metricsToken, TrustedProxies: so.proxies,
	}
	if !so.noScheduler {
		sched = a.newScheduler(pool, so.workers, so.tick)
		opts.SchedulerHeartbeat, opts.SchedulerStale = sched.Heartbeat, 5*so.tick
	}
	notifier, err := a.newNotifier(client)
	if err != nil {
		return err
	}
	opts.Notify = notifier
	opts.Mailbox = so.mailbox
	srv, err := web.New(a.store, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", a.cfg.Addr, err)
	}
	fmt.Fprintf(stdout, "tidings %s serving on http://%s/ (public URL %s)\n", versionName(), ln.Addr(), a.cfg.BaseURL)
	release, err := lockDB(a.cfg.DB, true)
	if err != nil {
		ln.Close()
		return err
	}
	defer release()
	if so.listening != nil {
		so.listening(ln.Addr())
	}
	// The scheduler is waited for before the deferred Close of the store:
	// a harvest under way at shutdown stores what it completed.
	var wg sync.WaitGroup
	if sched != nil {
		wg.Go(func() { sched.Run(ctx) })
	}
	if !so.noScheduler {
		// Beside the harvests, never inside one: it reads what they
		// stored. It belongs with the scheduler: a web process alone
		// sends nothing, the workers do.
		wg.Go(func() { notifier.Loop(ctx, notifyTick) })
		if so.digestEvery > 0 {
			wg.Go(func() { a.digestLoop(ctx, notifier, so.digestEvery) })
		}
	}
	stopped := make(chan struct{})
	wg.Go(func() {
		select {
		case <-ctx.Done():
			a.log.Info("stopping", "reason", stopReason(ctx))
		case <-stopped:
		}
	})
	err = srv.Serve(ctx, ln)
	close(stopped)
	wg.Wait()
	if err != nil {
		a.log.Error("stopped", "error", err)
		return err
	}
	a.log.Info("stopped")
	return nil
}

// digestLoop sends every digest of what is new each tick, whatever each
// person's schedule, until ctx ends: the demo's digests follow its rounds
// of changes, not the days.
func (a *app) digestLoop(ctx context.Context, n *notify.Notifier, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := n.Run(ctx, notify.RunOptions{AllDigests: true}); err != nil && ctx.Err() == nil {
			a.log.Error("notify failed", "error", err)
		}
	}
}

// stopReason says why serve's context ended: the signal main received, or
// the caller's cancellation.
func stopReason(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause.Error()
	}
	return "asked to stop"
}

// reportHarvest logs what a scheduled harvest's own log line did not
// say: an error that cut it short (the store failing, say).
func (a *app) reportHarvest(rep *harvest.SiteReport, err error) {
	switch {
	case err == nil:
	case rep == nil:
		a.log.Error("harvest failed", "error", err)
	case rep.Run.Error != err.Error():
		a.log.Error("harvest failed", "site", rep.Site.URL, "error", err)
	}
}

// parseCIDRs reads --trusted-proxies: "10.0.0.0/8, 127.0.0.1" (a bare
// address is a single host).
func parseCIDRs(list string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			if strings.Contains(f, ":") {
				f += "/128"
			} else {
				f += "/32"
			}
		}
		_, n, err := net.ParseCIDR(f)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %q is not an address or CIDR range", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// quotas are what one person may do, serve's flags; 0 is no limit.
type quotas struct {
	sites    int
	harvests int
	stored   int64
}

// quotaFlags registers the quotas each person has.
func quotaFlags(fs *flag.FlagSet) *quotas {
	q := &quotas{}
	fs.IntVar(&q.sites, "max-sites-per-user", follow.DefaultMaxSitesPerUser, "sites one person may follow, those waiting to be discovered included (0: no limit)")
	fs.IntVar(&q.harvests, "max-harvest-now-per-hour", follow.DefaultHarvestsPerHour, "harvests one person may ask for (Harvest now, adding a page to a watched site) in an hour, whichever the sites (0: no limit)")
	fs.Int64Var(&q.stored, "max-stored-per-user", follow.DefaultMaxStoredPerUser, "bytes the sites one person follows may store, a site several people follow counting a share to each, before they may follow no more sites nor ask for harvests (0: no limit)")
	return q
}

func (q quotas) validate() error {
	var errs []error
	if q.sites < 0 {
		errs = append(errs, fmt.Errorf("--max-sites-per-user must be 0 (no limit) or more, not %d", q.sites))
	}
	if q.harvests < 0 {
		errs = append(errs, fmt.Errorf("--max-harvest-now-per-hour must be 0 (no limit) or more, not %d", q.harvests))
	}
	if q.stored < 0 {
		errs = append(errs, fmt.Errorf("--max-stored-per-user must be 0 (no limit) or more, not %d", q.stored))
	}
	return errors.Join(errs...)
}

// options are the quotas as follow takes them, where no limit is negative.
func (q quotas) options() follow.Options {
	none := func(n int64) int64 {
		if n == 0 {
			return -1
		}
		return n
	}
	return follow.Options{MaxSitesPerUser: int(none(int64(q.sites))), HarvestsPerHour: int(none(int64(q.harvests))), MaxStoredPerUser: none(q.stored)}
}
