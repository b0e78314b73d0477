// Package websub tells a WebSub hub that feeds changed: the publisher's
// ping (hub.mode=publish), sent through the fetch client so that the hub is
// held to the same address policy as every site.
package websub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"tidings/fetch"
)

// DefaultPublishAttempts is how many times a publish ping is sent before
// giving up on it.
const DefaultPublishAttempts = 4

// PublisherOptions configure a Publisher.
type PublisherOptions struct {
	// Attempts per topic; 0 = DefaultPublishAttempts.
	Attempts int
	// Backoff is the wait before attempt n+1 (n counts from 1); nil waits
	// 2 s, then 10 s, then 30 s.
	Backoff func(n int) time.Duration
	Logger  *slog.Logger
}

// Publisher tells a WebSub hub that feeds changed: the publish ping
// (hub.mode=publish, hub.url=<topic>), one POST per topic, through the one
// Client so the hub is held to the same address policy as every site.
type Publisher struct {
	client *fetch.Client
	hub    string
	opts   PublisherOptions
}

// NewPublisher builds a Publisher for the hub at hubURL.
func NewPublisher(client *fetch.Client, hubURL string, o PublisherOptions) *Publisher {
	if o.Attempts <= 0 {
		o.Attempts = DefaultPublishAttempts
	}
	if o.Backoff == nil {
		o.Backoff = defaultBackoff
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Publisher{client: client, hub: hubURL, opts: o}
}

func defaultBackoff(n int) time.Duration {
	switch n {
	case 1:
		return 2 * time.Second
	case 2:
		return 10 * time.Second
	}
	return 30 * time.Second
}

// Publish pings the hub once for each topic, retrying a ping that failed
// for a reason that may pass (no answer, 429, 5xx). It returns the topics'
// errors joined; each is also logged.
func (p *Publisher) Publish(ctx context.Context, topics []string) error {
	var errs []error
	for _, topic := range topics {
		if err := p.publish(ctx, topic); err != nil {
			p.opts.Logger.Warn("websub publish failed", "hub", p.hub, "topic", topic, "error", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (p *Publisher) publish(ctx context.Context, topic string) error {
	form := url.Values{"hub.mode": {"publish"}, "hub.url": {topic}}
	for n := 1; ; n++ {
		_, err := p.client.PostForm(ctx, p.hub, form)
		if err == nil {
			p.opts.Logger.Debug("websub published", "hub", p.hub, "topic", topic)
			return nil
		}
		if !fetch.Transient(err) || n >= p.opts.Attempts {
			return fmt.Errorf("websub: publish of %s: %w", topic, err)
		}
		t := time.NewTimer(p.opts.Backoff(n))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("websub: publish of %s: %w", topic, errors.Join(err, ctx.Err()))
		case <-t.C:
		}
	}
}
