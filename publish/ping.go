package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"time"

	"tidings/fetch"
	"tidings/websub"
)

// DefaultIndexNowEndpoint is the shared IndexNow endpoint, which passes
// a submission on to every search engine that takes part.
const DefaultIndexNowEndpoint = "https://api.indexnow.org/indexnow"

// MaxIndexNowURLs is the most URLs one IndexNow submission may hold.
const MaxIndexNowURLs = 10000

// DefaultPingTimeout bounds all the pings of a run together.
const DefaultPingTimeout = 30 * time.Second

// indexNowKey is the form the IndexNow protocol gives a key.
var indexNowKey = regexp.MustCompile(`^[a-zA-Z0-9-]{8,128}$`)

// PingOptions say whom a run with changes tells of them; every ping is
// off when its field is empty.
type PingOptions struct {
	// Client sends the pings; required when one is asked for.
	Client *fetch.Client
	// IndexNowKey is the site's IndexNow key: the run writes it to
	// <key>.txt at the site's root and submits the changed URLs.
	IndexNowKey string
	// IndexNowEndpoint is where they are submitted
	// (DefaultIndexNowEndpoint when empty).
	IndexNowEndpoint string
	// WebSubHub is the hub pinged for each changed collection's change
	// list and change feed, and named in the feeds (rel="hub").
	WebSubHub string
	// Timeout bounds the pings of a run (DefaultPingTimeout when 0).
	Timeout time.Duration
}

func (o *PingOptions) normalize() error {
	if o.IndexNowKey != "" && !indexNowKey.MatchString(o.IndexNowKey) {
		return usagef("--indexnow-key must be 8 to 128 letters, digits or dashes, as IndexNow keys are")
	}
	if o.IndexNowKey != "" && o.IndexNowEndpoint == "" {
		o.IndexNowEndpoint = DefaultIndexNowEndpoint
	}
	for flag, u := range map[string]string{"--indexnow-endpoint": o.IndexNowEndpoint, "--websub-hub": o.WebSubHub} {
		if u == "" {
			continue
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return usagef("%s %q is not an absolute http or https URL", flag, u)
		}
	}
	if (o.IndexNowKey != "" || o.WebSubHub != "") && o.Client == nil {
		return usagef("pings need an HTTP client")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultPingTimeout
	}
	return nil
}

// keyFile is where the IndexNow key is published, at the site's root.
func (o *PingOptions) keyFile() string {
	if o.IndexNowKey == "" {
		return ""
	}
	return o.IndexNowKey + ".txt"
}

// PingResult is what one service answered.
type PingResult struct {
	// Service is "IndexNow" or "WebSub".
	Service string
	// URL is the endpoint or hub asked.
	URL string
	// Sent counts the URLs submitted (IndexNow) or the topics pinged
	// (WebSub); Left counts the changed URLs left out of a submission.
	Sent, Left int
	// Status is the HTTP status of the answer, 0 when none came or the
	// service answers in several.
	Status int
	// Err is why the ping failed; nil when it was taken.
	Err error
}

// String is the line a person reads.
func (p PingResult) String() string {
	what := fmt.Sprintf("%d changed URL(s)", p.Sent)
	if p.Service == "WebSub" {
		what = fmt.Sprintf("%d topic(s)", p.Sent)
	}
	s := fmt.Sprintf("%s: %s sent to %s", p.Service, what, p.URL)
	if p.Left > 0 {
		s += fmt.Sprintf(" (%d more left out: one submission holds at most %d)", p.Left, MaxIndexNowURLs)
	}
	if p.Err != nil {
		return s + ", not taken: " + p.Err.Error()
	}
	if p.Status != 0 {
		return s + fmt.Sprintf(", taken (%d)", p.Status)
	}
	return s + ", taken"
}

// ping tells the services asked of the run's changes, when there are
// any, except a first run's: never an error, each answer is reported.
func (r *run) ping(ctx context.Context, plans []*plan) {
	o := &r.o.Pings
	var changed, topics []string
	for _, p := range plans {
		// A first run's changes come from the commits: nothing says which
		// of them the services have not heard of.
		if len(p.adds) == 0 || p.res.First {
			continue
		}
		for _, e := range p.adds {
			changed = append(changed, e.url)
		}
		topics = append(topics, p.changeListURL, p.l.docURL(feedAtomName), p.l.docURL(feedJSONName))
	}
	if len(changed) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if o.IndexNowKey != "" {
		r.res.Pings = append(r.res.Pings, r.indexNow(ctx, changed))
	}
	if o.WebSubHub != "" {
		pub := websub.NewPublisher(o.Client, o.WebSubHub, websub.PublisherOptions{Attempts: 2, Backoff: func(int) time.Duration { return time.Second }})
		res := PingResult{Service: "WebSub", URL: o.WebSubHub, Sent: len(topics)}
		res.Err = pub.Publish(ctx, topics)
		r.res.Pings = append(r.res.Pings, res)
	}
}

// indexNow submits the changed URLs in one POST, as the protocol's JSON
// form says.
func (r *run) indexNow(ctx context.Context, changed []string) PingResult {
	o := &r.o.Pings
	slices.Sort(changed)
	changed = slices.Compact(changed)
	res := PingResult{Service: "IndexNow", URL: o.IndexNowEndpoint}
	if len(changed) > MaxIndexNowURLs {
		res.Left = len(changed) - MaxIndexNowURLs
		changed = changed[:MaxIndexNowURLs]
	}
	res.Sent = len(changed)
	body, err := json.Marshal(struct {
		Host        string   `json:"host"`
		Key         string   `json:"key"`
		KeyLocation string   `json:"keyLocation"`
		URLList     []string `json:"urlList"`
	}{hostName(r.o.BaseURL), o.IndexNowKey, pageURL(r.o.BaseURL, o.keyFile()), changed})
	if err != nil {
		res.Err = err
		return res
	}
	res.Status, res.Err = o.Client.Post(ctx, o.IndexNowEndpoint, "application/json; charset=utf-8", body, nil)
	if errors.Is(res.Err, context.DeadlineExceeded) {
		res.Err = fmt.Errorf("no answer within %s", o.Timeout)
	}
	return res
}

// hostName is the base URL's host without a port, as IndexNow names it.
func hostName(base string) string {
	if u, err := url.Parse(base); err == nil {
		return u.Hostname()
	}
	return ""
}
