package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/worker"
)

func cmdWorker(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("worker", stderr)
	globalFlags(fs, &cfg)
	cfg.MayCreate = true
	feedFlags(fs, &cfg)
	retentionFlag(fs, &cfg)
	notifyFlags(fs, &cfg)
	workers := workersFlag(fs)
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	if err := errors.Join(cfg.validateFeeds(), cfg.validateRetention()); err != nil {
		return usageError{err.Error()}
	}
	if *workers < 1 {
		return usageError{"--workers must be at least 1"}
	}
	// Not a server: feed addresses (in digests, in WebSub pings) use the
	// public URL serve remembers unless one is given.
	a, err := openApp(ctx, cfg, stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	defer a.store.Close()
	release, err := lockDB(a.cfg.DB, true)
	if err != nil {
		return err
	}
	defer release()
	return a.work(ctx, workOptions{workers: *workers, tick: schedulerTick}, stdout)
}

// workOptions are worker's own settings.
type workOptions struct {
	workers int
	tick    time.Duration // how often the scheduler looks for due sites
	// started, when set, is called once the work has started, with the
	// name the process holds leases by.
	started func(holder string)
}

// work runs the background work until ctx ends: the scheduler (and its
// sweeps), the discoveries people asked for and the notifier, as serve
// does beside its web server; the host pool is shared through the
// database with every other process, so that several may work at once.
func (a *app) work(ctx context.Context, wo workOptions, stdout io.Writer) error {
	client := fetch.NewClient(a.cfg.clientOptions())
	ho := a.cfg.harvestOptions(a.log)
	if a.cfg.WebSubHub != "" {
		p, err := newPinger(ctx, a, client)
		if err != nil {
			return err
		}
		defer p.wait()
		ho.AfterHarvest = p.afterHarvest
	}
	pool := a.sharedPool(client)
	a.setHarvester(harvest.New(client, a.store, ho), follow.Options{Pool: pool})
	sched := a.newScheduler(pool, wo.workers, wo.tick)
	notifier, err := a.newNotifier(client)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tidings %s working on %s as %s\n", versionName(), db.Redact(a.cfg.DB), pool.Holder())
	a.follow.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { sched.Run(ctx) })
	wg.Go(func() { notifier.Loop(ctx, notifyTick) })
	if wo.started != nil {
		wo.started(pool.Holder())
	}
	<-ctx.Done()
	a.log.Info("stopping", "reason", stopReason(ctx))
	// What is under way stores what it completed before the store
	// closes.
	wg.Wait()
	a.follow.Wait()
	a.log.Info("stopped")
	return nil
}

// newScheduler is the scheduler of serve and worker: workers sites at
// once on pool, looking for due ones every tick.
func (a *app) newScheduler(pool *worker.Pool, workers int, tick time.Duration) *worker.Scheduler {
	return worker.NewScheduler(a.store, a.harvester, worker.SchedulerOptions{
		Workers: workers, Tick: tick, Report: a.reportHarvest, Retention: a.cfg.retention(),
		Pool: pool, Logger: a.log,
	})
}

// sharedPool is the host pool of a process that shares the database with
// others: a host is leased there while worked on, and held afterwards for
// the host delay (the site's own, when its client was told a longer one).
func (a *app) sharedPool(client *fetch.Client) *worker.Pool {
	return worker.NewSharedPool(a.store, worker.Sharing{Logger: a.log, Delay: func(host string) time.Duration {
		d := a.cfg.HostDelay
		if client != nil {
			d = max(d, client.HostDelay(host))
		}
		return d
	}})
}
