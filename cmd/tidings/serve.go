package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"tidings/harvest"
	"tidings/web"
)

// schedulerTick is how often serve looks for sites that are due.
const schedulerTick = time.Minute

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("serve", stderr)
	globalFlags(fs, &cfg)
	noScheduler := fs.Bool("no-scheduler", false, "serve feeds without harvesting on schedule")
	registration := fs.String("registration", web.RegistrationInvite, "who may sign up: open, invite (the first account, then invite links) or closed (tidings user add only)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	switch *registration {
	case web.RegistrationOpen, web.RegistrationInvite, web.RegistrationClosed:
	default:
		return usageError{fmt.Sprintf("--registration must be open, invite or closed, not %q", *registration)}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelInfo)
	if err != nil {
		return err
	}
	defer a.store.Close()
	srv, err := web.New(a.store, web.Options{
		BaseURL: a.cfg.BaseURL, Logger: a.log, Harvester: a.harvester, Registration: *registration,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", a.cfg.Addr, err)
	}
	fmt.Fprintf(stdout, "tidings %s serving on http://%s/ (public URL %s)\n", Version, ln.Addr(), a.cfg.BaseURL)
	if !*noScheduler {
		go a.schedule(ctx)
	}
	return srv.Serve(ctx, ln)
}

// schedule harvests due sites, one at a time, until ctx ends.
func (a *app) schedule(ctx context.Context) {
	t := time.NewTicker(schedulerTick)
	defer t.Stop()
	for {
		err := a.harvester.HarvestDue(ctx, func(rep *harvest.SiteReport, err error) {
			if err != nil && rep != nil {
				a.log.Warn("harvest failed", "site", rep.Site.URL, "error", err)
			}
		})
		if err != nil && ctx.Err() == nil {
			a.log.Error("scheduler", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
