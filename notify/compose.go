package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
)

// Bounds of what one message tells.
const (
	// digestChanges is the most changes one digest lists; past it, it
	// says how many more there are and where to read them.
	digestChanges = 200
	// pushChanges is the most changes one push lists.
	pushChanges = 50
	// pushRuns is the most harvest runs one target is told of per Run;
	// the next Run goes on from there.
	pushRuns = 20
)

// period is how long a schedule waits between two digests.
func period(every string) time.Duration {
	if every == db.EveryWeekly {
		return 7 * 24 * time.Hour
	}
	return 24 * time.Hour
}

// queueDigests records the digests due now (every subscriber's, with
// all) in the outbox, each with the move of its person's watermark.
func (n *Notifier) queueDigests(ctx context.Context, all bool, rep *Report) error {
	if n.mail == nil {
		return nil
	}
	subs, err := n.store.Subscribers(ctx)
	if err != nil {
		return err
	}
	latest, err := n.store.LatestRun(ctx)
	if err != nil {
		return err
	}
	now := n.opts.Now()
	var errs []error
	for _, s := range subs {
		if ctx.Err() != nil {
			break
		}
		if !all && s.DigestAt != nil && now.Before(s.DigestAt.Add(period(s.Every))) {
			continue
		}
		// A digest sent before its time (notify --now, the demo's rounds)
		// says so beside the person's schedule.
		early := s.DigestAt != nil && now.Before(s.DigestAt.Add(period(s.Every)))
		queued, err := n.queueDigest(ctx, s, latest, now, early)
		if err != nil {
			errs = append(errs, fmt.Errorf("notify: digest of %s: %w", s.UserName, err))
		}
		if queued {
			rep.Digests++
		}
	}
	return errors.Join(errs...)
}

// queueDigest records one person's digest of the runs after their last
// one up to latest; a digest with nothing new is not sent, but its time
// is taken all the same, so that the next comes a period later.
func (n *Notifier) queueDigest(ctx context.Context, s db.NotifySettings, latest int64, now time.Time, early bool) (bool, error) {
	if latest < s.DigestAfter {
		latest = s.DigestAfter
	}
	changes, total, err := n.store.NotifyChanges(ctx, db.NotifyScope{UserID: s.UserID, AfterRun: s.DigestAfter, UpToRun: latest}, digestChanges)
	if err != nil {
		return false, err
	}
	var msg *db.OutboxMessage
	if len(changes) > 0 {
		e, err := n.digest(ctx, s, changes, total, early)
		if err != nil {
			return false, err
		}
		body, err := json.Marshal(e)
		if err != nil {
			return false, err
		}
		msg = &db.OutboxMessage{UserID: s.UserID, Kind: db.OutboxEmail, Address: s.Email, Message: string(body)}
	}
	err = n.store.EnqueueDigest(ctx, s.UserID, s.DigestAfter, latest, msg, now)
	if errors.Is(err, db.ErrConflict) {
		return false, nil // another process queued it
	}
	return err == nil && msg != nil, err
}

// queuePushes records, for every push target, one message per harvest
// run that put changes in its scope since the last it was told of.
func (n *Notifier) queuePushes(ctx context.Context, rep *Report) error {
	targets, err := n.store.PushTargets(ctx, 0)
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range targets {
		if ctx.Err() != nil {
			break
		}
		k, err := n.queuePush(ctx, t)
		if err != nil {
			errs = append(errs, fmt.Errorf("notify: pushes to target %d: %w", t.ID, err))
		}
		rep.Pushes += k
	}
	return errors.Join(errs...)
}

func (n *Notifier) queuePush(ctx context.Context, t db.PushTarget) (int, error) {
	runs, err := n.store.NotifyRuns(ctx, db.NotifyScope{UserID: t.UserID, SiteID: t.SiteID, AfterRun: t.AfterRun}, pushRuns)
	if err != nil || len(runs) == 0 {
		return 0, err
	}
	var msgs []db.OutboxMessage
	for _, r := range runs {
		changes, total, err := n.store.NotifyChanges(ctx, db.NotifyScope{UserID: t.UserID, SiteID: t.SiteID, AfterRun: r - 1, UpToRun: r}, pushChanges)
		if err != nil {
			return 0, err
		}
		if len(changes) == 0 {
			continue
		}
		body, err := json.Marshal(n.pushOf(changes, total))
		if err != nil {
			return 0, err
		}
		msgs = append(msgs, db.OutboxMessage{UserID: t.UserID, TargetID: t.ID, Kind: pushKind(t.URL), Address: t.URL, Message: string(body)})
	}
	err = n.store.EnqueuePush(ctx, t.ID, t.AfterRun, runs[len(runs)-1], msgs, n.opts.Now())
	if errors.Is(err, db.ErrConflict) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return len(msgs), nil
}

// webhookChange is one change as a webhook's JSON tells it.
type webhookChange struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Kind     string `json:"kind"`
	Datetime string `json:"datetime"`
	Summary  string `json:"summary"`
}

// webhookBody is what a generic webhook gets for one harvest run.
type webhookBody struct {
	Site            string          `json:"site"`
	SiteTitle       string          `json:"site_title"`
	SitePage        string          `json:"site_page"`
	Collection      string          `json:"collection"`
	CollectionTitle string          `json:"collection_title"`
	Changes         []webhookChange `json:"changes"`
	// Omitted counts the run's changes past those listed.
	Omitted int `json:"omitted"`
}

// pushOf is the push of one run's changes: for shoutrrr's services the
// site, the titles of the pages and a link; for webhooks the JSON.
func (n *Notifier) pushOf(changes []db.NotifyChange, total int) push {
	first := changes[0]
	site := siteName(first)
	page := n.sitePage(first)
	body := webhookBody{Site: first.SiteURL, SiteTitle: site, SitePage: page, Collection: first.CollectionKey,
		CollectionTitle: oneLine(first.CollectionTitle), Omitted: total - len(changes), Changes: []webhookChange{}}
	var sb strings.Builder
	for i, ch := range changes {
		body.Changes = append(body.Changes, webhookChange{URL: ch.URL, Title: oneLine(ch.Title), Kind: ch.Kind,
			Datetime: ch.Datetime.UTC().Format(time.RFC3339), Summary: changeSummary(ch.Change)})
		if i < 10 {
			fmt.Fprintf(&sb, "- %s (%s)\n", pageTitle(ch), ch.Kind)
			// What the text did, removed and added, as the digest says it.
			if s := changeSummary(ch.Change); s != "" {
				fmt.Fprintf(&sb, "  %s\n", clip(s, 300))
			}
		}
	}
	if more := total - min(len(changes), 10); more > 0 {
		fmt.Fprintf(&sb, "and %d more\n", more)
	}
	sb.WriteString(page)
	js, _ := json.Marshal(body)
	return push{Title: clip(fmt.Sprintf("%s: %s", site, plural(total, "page changed", "pages changed")), 200), Text: sb.String(), JSON: string(js)}
}

// changeSummary is a change's summary as the site gave it, else what its
// text did in one line.
func changeSummary(ch db.Change) string {
	if s := oneLine(ch.Summary); s != "" {
		return clip(s, 500)
	}
	if ch.TextChange == db.TextUnchanged {
		return "no change to the text"
	}
	if d, ok := feedbuild.TextDiff(ch); ok {
		return clip(oneLine(d.Summary()), 500)
	}
	return ""
}

// siteName is the name a person knows a site by.
func siteName(ch db.NotifyChange) string {
	if t := oneLine(ch.SiteTitle); t != "" {
		return clip(t, 200)
	}
	return ch.SiteURL
}

// pageTitle names a changed page: its title, else its address.
func pageTitle(ch db.NotifyChange) string {
	if t := oneLine(ch.Title); t != "" {
		return clip(t, 300)
	}
	return ch.URL
}

// sitePage is the site's page on this tidings.
func (n *Notifier) sitePage(ch db.NotifyChange) string {
	return n.abs("site/" + ch.SitePublicID)
}

// oneLine is site text made safe for a line of a message: valid UTF-8,
// no control characters, spaces collapsed.
func oneLine(s string) string { return strings.Join(strings.Fields(feeds.CleanText(s)), " ") }

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func plural(k int, one, many string) string {
	if k == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", k, many)
}
