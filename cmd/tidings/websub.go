package main

import (
	"context"
	"log/slog"
	"sync"

	"tidings/feedbuild"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/websub"
)

// pinger pings the WebSub hub after each harvest that adds entries, in the
// background so a slow hub never holds up harvesting.
type pinger struct {
	ctx   context.Context
	log   *slog.Logger
	pub   *websub.Publisher
	build *feedbuild.Builder

	mu      sync.Mutex // guards closing and wg.Go against wait
	closing bool
	wg      sync.WaitGroup
}

// newPinger builds a pinger that publishes to the configured hub through
// client; its afterHarvest goes into the harvester's AfterHarvest. The
// feeds a harvest changed are named as serve names them, from the same
// settings.
func newPinger(ctx context.Context, a *app, client *fetch.Client) (*pinger, error) {
	build, err := feedbuild.New(a.store, feedbuild.Options{
		BaseURL: a.cfg.BaseURL, FeedEntries: a.cfg.FeedEntries, FailingAfter: a.cfg.FailingAfter, HubURL: a.cfg.WebSubHub,
	})
	if err != nil {
		return nil, err
	}
	return &pinger{
		ctx: ctx, log: a.log, build: build,
		pub: websub.NewPublisher(client, a.cfg.WebSubHub, websub.PublisherOptions{Logger: a.log}),
	}, nil
}

// afterHarvests chains AfterHarvest hooks, called in order; nil ones are
// skipped.
func afterHarvests(hooks ...func(context.Context, *harvest.SiteReport)) func(context.Context, *harvest.SiteReport) {
	return func(ctx context.Context, rep *harvest.SiteReport) {
		for _, h := range hooks {
			if h != nil {
				h(ctx, rep)
			}
		}
	}
}

func (p *pinger) afterHarvest(ctx context.Context, rep *harvest.SiteReport) {
	topics, err := p.build.ChangedFeeds(ctx, rep.Site.ID, harvested(rep))
	if err != nil {
		p.log.Error("websub: list the feeds a harvest changed", "site", rep.Site.URL, "error", err)
		return
	}
	if len(topics) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return
	}
	p.wg.Go(func() {
		if err := p.pub.Publish(p.ctx, topics); err == nil {
			p.log.Info("websub: pinged the hub", "site", rep.Site.URL, "feeds", len(topics))
		}
	})
}

// wait returns when the pings under way are done (or given up, once the
// context the pinger was built with has ended); no ping starts after it is
// called.
func (p *pinger) wait() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.wg.Wait()
}

// harvested is what the feed builder needs of a site harvest's report.
func harvested(rep *harvest.SiteReport) []feedbuild.Harvested {
	out := make([]feedbuild.Harvested, len(rep.Collections))
	for i, cr := range rep.Collections {
		out[i] = feedbuild.Harvested{Collection: cr.Collection, Run: cr.Run}
	}
	return out
}
