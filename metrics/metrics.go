// Package metrics holds the Prometheus collectors of one tidings process:
// what harvests did, what the fetches answered, how feed requests were
// answered, and the harvest schedule. The web server exposes them at
// /metrics; the harvester and the HTTP client feed them through hooks.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"tidings/db"
	"tidings/harvest"
	"tidings/source"
)

// OverdueAfter is how long a site may stay due before the metrics count it
// as overdue: the scheduler looks every minute, so an hour means it is
// stopped or far behind.
const OverdueAfter = time.Hour

// The kinds of feed that FeedAnswered counts requests of.
const (
	FeedCollection = "collection"
	FeedSite       = "site"
	FeedUser       = "user"
)

var feedKinds = []string{FeedCollection, FeedSite, FeedUser}

// discoveryProtocol labels what a harvest fetches before any collection:
// robots.txt, the Source Description, sitemaps.
const discoveryProtocol = "discovery"

// Metrics are the Prometheus collectors of one tidings process, in a
// registry of their own: harvests, fetches, feeds served, and the harvest
// schedule read from the database at each scrape.
type Metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	siteHarvests *prometheus.CounterVec // outcome
	runs         *prometheus.CounterVec // protocol, outcome
	documents    *prometheus.CounterVec // protocol
	notModified  *prometheus.CounterVec // protocol
	changes      *prometheus.CounterVec // protocol
	duration     prometheus.Histogram
	bytes        prometheus.Counter
	responses    *prometheus.CounterVec // code
	feeds        *prometheus.CounterVec // kind, code
	feedSeries   map[feedSeriesKey]prometheus.Counter

	sites, due, overdue prometheus.Gauge
}

// New builds the collectors and their registry, with the Go runtime and
// process collectors beside them.
func New() *Metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "tidings", Name: name, Help: help}, labels)
	}
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "tidings", Name: name, Help: help})
	}
	m := &Metrics{
		reg:          prometheus.NewRegistry(),
		siteHarvests: counter("site_harvests_total", "Site harvests by outcome: ok, partial (some collections failed) or error.", "outcome"),
		runs:         counter("harvest_runs_total", "Collection harvest runs by protocol and outcome (ok or error).", "protocol", "outcome"),
		documents:    counter("documents_fetched_total", "Documents fetched by harvests, 304 answers included, by protocol (discovery for those read before any collection).", "protocol"),
		notModified:  counter("documents_not_modified_total", "Documents fetched by harvests that answered 304 Not Modified, by protocol.", "protocol"),
		changes:      counter("changes_recorded_total", "New changes harvests put into feeds, by protocol.", "protocol"),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "tidings", Name: "harvest_duration_seconds", Help: "How long one site harvest took, discovery and every collection.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800},
		}),
		bytes: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "tidings", Name: "fetched_bytes_total", Help: "Bytes of the documents fetched, after decompression.",
		}),
		responses: counter("fetch_responses_total", "HTTP answers to tidings' fetches, by status code.", "code"),
		feeds:     counter("feed_requests_total", "Feed requests served, by kind of feed (collection, site, user) and status code (304 when the reader's copy was current).", "kind", "code"),
		sites:     gauge("sites", "Followed sites."),
		due:       gauge("sites_due", "Sites whose next harvest time has come, or that were never harvested."),
		overdue:   gauge("sites_overdue", "Sites due for more than an hour: the scheduler is stopped or behind."),
	}
	m.reg.MustRegister(m.siteHarvests, m.runs, m.documents, m.notModified, m.changes, m.duration,
		m.bytes, m.responses, m.feeds, m.sites, m.due, m.overdue,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
	m.initSeries()
	return m
}

// initSeries creates the series every process has at 0, so that each
// family is listed from the start and a rate over a first event is right.
func (m *Metrics) initSeries() {
	for _, o := range []string{"ok", "partial", "error"} {
		m.siteHarvests.WithLabelValues(o)
	}
	m.documents.WithLabelValues(discoveryProtocol)
	m.notModified.WithLabelValues(discoveryProtocol)
	for _, p := range source.Names() {
		m.runs.WithLabelValues(p, "ok")
		m.runs.WithLabelValues(p, "error")
		m.documents.WithLabelValues(p)
		m.notModified.WithLabelValues(p)
		m.changes.WithLabelValues(p)
	}
	m.feedSeries = map[feedSeriesKey]prometheus.Counter{}
	for _, code := range []int{http.StatusOK, http.StatusNotModified} {
		m.responses.WithLabelValues(strconv.Itoa(code))
		for _, kind := range feedKinds {
			m.feedSeries[feedSeriesKey{kind, code}] = m.feeds.WithLabelValues(kind, strconv.Itoa(code))
		}
	}
}

// Registry is where the collectors are registered, for tests and for
// adding more.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// AfterHarvest counts what one site harvest did; it fits
// harvest.Options.AfterHarvest.
func (m *Metrics) AfterHarvest(_ context.Context, rep *harvest.SiteReport) {
	m.documents.WithLabelValues(discoveryProtocol).Add(float64(rep.Run.Documents))
	m.notModified.WithLabelValues(discoveryProtocol).Add(float64(rep.Run.NotModified))
	finished, failed := rep.Run.FinishedAt, 0
	for _, c := range rep.Collections {
		p, r := c.Collection.Protocol, c.Run
		outcome := "ok"
		if r.Error != "" {
			outcome = "error"
			failed++
		}
		m.runs.WithLabelValues(p, outcome).Inc()
		m.documents.WithLabelValues(p).Add(float64(r.Documents))
		m.notModified.WithLabelValues(p).Add(float64(r.NotModified))
		m.changes.WithLabelValues(p).Add(float64(r.Changes))
		if r.FinishedAt.After(finished) {
			finished = r.FinishedAt
		}
	}
	outcome := "ok"
	switch {
	case (rep.Run.Error != "" || failed > 0) && failed == len(rep.Collections):
		outcome = "error"
	case rep.Run.Error != "" || failed > 0:
		outcome = "partial"
	}
	m.siteHarvests.WithLabelValues(outcome).Inc()
	if d := finished.Sub(rep.Run.StartedAt); d >= 0 {
		m.duration.Observe(d.Seconds())
	}
}

// OnResponse counts one answer to a fetch; it fits
// fetch.ClientOptions.OnResponse. The host is not a label: there is one
// per followed site.
func (m *Metrics) OnResponse(_ string, status int, bytes int64) {
	m.responses.WithLabelValues(strconv.Itoa(status)).Inc()
	m.bytes.Add(float64(bytes))
}

// FeedAnswered counts one answer to a request for a feed of kind
// (FeedCollection, FeedSite or FeedUser) by its status code. The series of
// the answers a reader's poll gets are looked up once, not per request.
func (m *Metrics) FeedAnswered(kind string, code int) {
	if c := m.feedSeries[feedSeriesKey{kind, code}]; c != nil {
		c.Inc()
		return
	}
	m.feeds.WithLabelValues(kind, strconv.Itoa(code)).Inc()
}

type feedSeriesKey struct {
	kind string
	code int
}

// SetSchedule records the harvest schedule as read from the database; it
// is read at each scrape, so the gauges hold however many processes
// harvest.
func (m *Metrics) SetSchedule(sched db.Schedule) {
	m.sites.Set(float64(sched.Sites))
	m.due.Set(float64(sched.Due))
	m.overdue.Set(float64(sched.Overdue))
}

// Handler answers a scrape in Prometheus' text format.
func (m *Metrics) Handler() http.Handler { return m.handler }
