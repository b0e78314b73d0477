package iiif

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"tidings/db"
	"tidings/harvest"
	iiifdoc "tidings/iiif"
	"tidings/urls"
)

// Bounds of one harvest beyond the site's budgets.
const (
	// maxActivities is the most activities one harvest takes; a walk
	// stops after the page that passes it and goes on next harvest.
	maxActivities = 20_000
	// maxWalks is the most unfinished walks kept; see state.
	maxWalks = 16
)

// The kinds of change the store knows.
const (
	created = "created"
	updated = "updated"
	deleted = "deleted"
)

// state is a stream collection's state, stored with each harvest.
type state struct {
	// Newest is the time of the newest activity read, at most the
	// harvest's own: the next harvest reads back to it (the spec's
	// lastCrawl).
	Newest *time.Time `json:"newest,omitempty"`
	// HistoryBefore is the first harvest's cutoff: a change older, read
	// by a later harvest that goes on reading the stream back, is
	// history too.
	HistoryBefore *time.Time `json:"history_before,omitempty"`
	// Walks are readings back that a budget (or a failed page) cut
	// short, the newest first: each goes on at Next.
	Walks []walk `json:"walks,omitempty"`
}

// walk is one reading back through prev.
type walk struct {
	Next string `json:"next"`
	// Until: activities before it were read by an earlier walk; nil for
	// the stream's first reading, which stops at a Refresh or the start.
	Until *time.Time `json:"until,omitempty"`
	// OnlyDelete: past a Refresh only removals are news (section 2.1.5).
	OnlyDelete bool `json:"only_delete,omitempty"`
	// Oldest is the time of the oldest activity read so far: a page
	// with newer ones is prev going forwards, a loop.
	Oldest *time.Time `json:"oldest,omitempty"`
}

// run is one harvest of a stream.
type run struct {
	*harvest.CollectionRun
	src   string // the collection's URL
	id    string // its id, as activities name it in origin and target
	lang  string
	st    state
	known map[string]db.Page // every resource read, by URL: see include
	res   harvest.Result
	taken int
	// newest is the newest activity time the head walk read.
	newest  time.Time
	undated int
	skipped map[string]int // activities of object types no reader knows
	offSite int
}

// Harvest reads the stream from its newest page back to the last
// harvest, then goes on with what earlier harvests left unread. Each
// resource's newest activity is its change. What was read is stored even
// when a page fails, and the walk goes on at that page next time.
func (Source) Harvest(ctx context.Context, r *harvest.CollectionRun) (harvest.Result, error) {
	h := &run{CollectionRun: r, src: r.Collection().SourceURL, skipped: map[string]int{}}
	h.id = h.src
	if s, ok := r.Settings().(*Settings); ok {
		h.lang = strings.TrimSpace(s.Language)
	}
	if st := r.Collection().State; st != "" && json.Unmarshal([]byte(st), &h.st) != nil {
		h.Warn("the stored state of this stream could not be read; it is read afresh")
		h.st = state{}
	}
	if h.First() && h.st.HistoryBefore == nil {
		cut := r.Cutoff()
		h.st.HistoryBefore = &cut
	}
	err := h.run(ctx)
	h.finish()
	return h.res, err
}

func (h *run) run(ctx context.Context) error {
	known, err := h.KnownPages(ctx)
	if err != nil {
		return err
	}
	h.known = known
	last, err := h.collection(ctx)
	if err != nil {
		return err
	}
	walks := h.st.Walks
	h.st.Walks = nil
	if last != "" {
		head := walk{Next: last, Until: h.st.Newest}
		err = h.walk(ctx, &head, true)
		if h.newest.After(h.Now()) {
			h.newest = h.Now()
		}
		if !h.newest.IsZero() && (h.st.Newest == nil || h.newest.After(*h.st.Newest)) {
			n := h.newest
			h.st.Newest = &n
		}
		if err != nil {
			h.st.Walks = append(h.st.Walks, walks...)
			return err
		}
	}
	for i, w := range walks {
		if err := h.walk(ctx, &w, false); err != nil {
			h.st.Walks = append(h.st.Walks, walks[i+1:]...)
			return err
		}
	}
	return nil
}

// collection reads the stream's OrderedCollection for its last page; ""
// when nothing is new (the collection and its last page unchanged).
func (h *run) collection(ctx context.Context) (string, error) {
	resp, memo, err := h.Fetch(ctx, "IIIF change stream", h.src)
	if err != nil {
		if se := fetchError("collection", h.src, err); se != nil {
			return "", &harvest.Problem{Msg: se.Error(), Err: se}
		}
		return "", err
	}
	if resp.NotModified {
		var m collectionMemo
		if json.Unmarshal([]byte(memo), &m) != nil || m.Last == "" {
			h.Forget(h.src)
			return "", harvest.Problemf("the IIIF change stream %s was not modified but nothing was remembered of it; it is read whole next time", h.src)
		}
		h.id = m.ID
		return m.Last, nil
	}
	doc, err := iiifdoc.Parse(bytes.NewReader(resp.Body))
	if err == nil && doc.Collection == nil {
		err = &iiifdoc.Error{Msg: "it is a page of a stream, not its OrderedCollection", Err: iiifdoc.ErrNotStream}
	}
	if err != nil {
		se := &StreamError{Role: "collection", URL: h.src, Err: err}
		return "", &harvest.Problem{Msg: se.Error(), Err: se}
	}
	if doc.Collection.ID != "" {
		h.id = doc.Collection.ID
	}
	m, _ := json.Marshal(collectionMemo{Last: doc.Collection.Last, ID: h.id})
	h.Keep(h.src, resp, string(m))
	return doc.Collection.Last, nil
}

// collectionMemo is what a collection answered, kept for a 304.
type collectionMemo struct {
	Last string `json:"last"`
	ID   string `json:"id,omitempty"`
}

// walk reads pages back through prev from w.Next. A walk that cannot go
// on (the budget of documents spent, enough activities taken, a page
// failed) is kept to go on next harvest; a loop is dropped.
func (h *run) walk(ctx context.Context, w *walk, head bool) error {
	read := map[string]bool{}
	for w.Next != "" {
		if read[w.Next] {
			return h.loop(w)
		}
		read[w.Next] = true
		if h.taken >= maxActivities {
			h.Warn("this harvest took %d activities, the most one may; the stream is read on from %s at the next harvest", h.taken, w.Next)
			h.keepWalk(*w)
			return nil
		}
		page, err := h.page(ctx, w.Next)
		if err != nil {
			if harvest.OverBudget(err) {
				h.Warn("the stream is read on from %s at the next harvest: this one reached the limit of documents (--max-documents)", w.Next)
				h.keepWalk(*w)
				return nil
			}
			h.keepWalk(*w)
			return err
		}
		done, err := h.activities(w, page, head)
		if err != nil || done {
			return err
		}
		w.Next = page.Prev
	}
	return nil
}

// keepWalk keeps an unfinished walk for the next harvest.
func (h *run) keepWalk(w walk) {
	if len(h.st.Walks) >= maxWalks {
		h.Warn("the stream has more unfinished readings back than tidings keeps (%d); the oldest changes of one are not read", maxWalks)
		return
	}
	h.st.Walks = append(h.st.Walks, w)
}

func (h *run) loop(w *walk) error {
	se := &StreamError{Role: "page", URL: w.Next, Err: ErrPageLoop}
	return &harvest.Problem{Msg: se.Error(), Err: se}
}

// page fetches and parses one page.
func (h *run) page(ctx context.Context, u string) (*iiifdoc.Page, error) {
	resp, _, err := h.Fetch(ctx, "page of the IIIF change stream", u)
	if err != nil {
		if harvest.OverBudget(err) {
			return nil, err
		}
		h.NoteFailure(err)
		if se := fetchError("page", u, err); se != nil {
			return nil, &harvest.Problem{Msg: se.Error(), Err: se}
		}
		return nil, err
	}
	doc, err := iiifdoc.Parse(bytes.NewReader(resp.Body))
	if err == nil && doc.Page == nil {
		err = &iiifdoc.Error{Msg: "it is not an OrderedCollectionPage", Err: iiifdoc.ErrNotStream}
	}
	if err != nil {
		se := &StreamError{Role: "page", URL: u, Err: err}
		return nil, &harvest.Problem{Msg: se.Error(), Err: se}
	}
	for _, warning := range doc.Page.Warnings {
		h.Warn("%s: %s", u, warning)
	}
	h.CountWarnings(doc.Page.MoreWarnings)
	return doc.Page, nil
}

// activities takes a page's activities newest first (the spec's page
// algorithm); done when the walk reached what was read before, or a
// Refresh on the stream's first reading.
func (h *run) activities(w *walk, p *iiifdoc.Page, head bool) (bool, error) {
	items := p.Items
	for i := len(items) - 1; i >= 0; i-- {
		a := &items[i]
		at := a.Time()
		if at.IsZero() {
			h.undated++
			continue
		}
		if w.Oldest != nil && at.After(*w.Oldest) && i == len(items)-1 {
			// The page before in this walk held only older activities:
			// prev went forwards.
			return true, h.loop(w)
		}
		if w.Until != nil && at.Before(*w.Until) {
			return true, nil
		}
		if head && at.After(h.newest) {
			h.newest = at
		}
		if w.Oldest == nil || at.Before(*w.Oldest) {
			o := at
			w.Oldest = &o
		}
		if a.Type == iiifdoc.Refresh {
			if w.Until == nil {
				return true, nil
			}
			w.OnlyDelete = true
			continue
		}
		h.take(a, at, w.OnlyDelete, p.ID)
	}
	return false, nil
}

// take applies one activity (the spec's steps 3 to 9): each resource's
// newest activity only; removals even past a Refresh.
func (h *run) take(a *iiifdoc.Activity, at time.Time, onlyDelete bool, page string) {
	if h.processed(a.Object.ID, at) {
		return
	}
	switch t := a.Object.Type; t {
	case "", "Manifest", "Collection":
	default:
		h.skipped[t]++
		return
	}
	if !h.onSite(a.Object.ID) {
		h.offSite++
		return
	}
	switch {
	case a.Type == iiifdoc.Delete:
		h.remove(a.Object, at, "", page)
	case a.Type == iiifdoc.Remove && h.thisStream(a.Origin.ID):
		h.remove(a.Object, at, "Removed from the stream", page)
	case onlyDelete:
	case a.Type == iiifdoc.Create:
		h.include(a.Object, created, at, "", page)
	case a.Type == iiifdoc.Update:
		h.include(a.Object, updated, at, "", page)
	case a.Type == iiifdoc.Add && h.thisStream(a.Target.ID):
		h.include(a.Object, created, at, "Added to the stream", page)
	case a.Type == iiifdoc.Move && a.Target.ID != "" && a.Target.ID != a.Object.ID && h.onSite(a.Target.ID):
		target := a.Target
		if len(target.Label) == 0 {
			target.Label = a.Object.Label
		}
		title, home, lang := h.name(target, at)
		if title == "" {
			title = h.known[a.Object.ID].Title
		}
		h.removeNamed(a.Object, at, "Moved to "+a.Target.ID, page, title, lang)
		if !h.processed(target.ID, at) {
			h.record(target.ID, created, at, "Moved from "+a.Object.ID, page, title, home, lang)
		}
	}
}

// processed reports whether a newer (or this) activity of the resource
// was taken already, in this harvest or an earlier one.
func (h *run) processed(id string, at time.Time) bool {
	p, ok := h.known[id]
	return ok && p.Modified != nil && !p.Modified.Before(at)
}

// thisStream reports whether id names the stream being read (an Add's
// target, a Remove's origin).
func (h *run) thisStream(id string) bool {
	return id != "" && (id == h.id || id == h.src)
}

// include records a resource created or updated, named by its label.
func (h *run) include(obj iiifdoc.Ref, kind string, at time.Time, summary, page string) {
	title, home, lang := h.name(obj, at)
	h.record(obj.ID, kind, at, summary, page, title, home, lang)
}

// remove records a resource deleted, named as it was last known.
func (h *run) remove(obj iiifdoc.Ref, at time.Time, summary, page string) {
	title, lang := obj.Label.Pick(h.lang), ""
	if title == "" {
		title = h.known[obj.ID].Title
	}
	h.removeNamed(obj, at, summary, page, title, lang)
}

func (h *run) removeNamed(obj iiifdoc.Ref, at time.Time, summary, page, title, lang string) {
	home := h.known[obj.ID].Summary
	h.record(obj.ID, deleted, at, summary, page, title, home, lang)
}

// record records a change of resource id and remembers the resource: its
// label as the page's title, its home page as the page's summary.
func (h *run) record(id, kind string, at time.Time, summary, page, title, home, lang string) {
	h.taken++
	u := id
	if home != "" {
		u = home
	}
	c := db.Change{URL: u, Kind: kind, Datetime: at, Source: page, Title: title, Summary: summary, Language: lang,
		History: h.history(at)}
	h.Record(c)
	t := at
	p := db.Page{URL: id, Modified: &t, Title: title, Summary: home, Hash: kind}
	h.known[id] = p
	h.res.Pages = append(h.res.Pages, p)
}

// history reports whether a change read on after the first harvest is
// older than that harvest's window: history, as it would have been then.
func (h *run) history(at time.Time) bool {
	return !h.First() && h.st.HistoryBefore != nil && at.Before(*h.st.HistoryBefore)
}

// name is what to call a resource, its home page and the language of its
// name: the activity's label, else its Manifest's (read within the site
// harvest's page fetches), else the name it had.
func (h *run) name(obj iiifdoc.Ref, at time.Time) (title, home, lang string) {
	old := h.known[obj.ID]
	title, home = pick(obj.Label, h.lang), old.Summary
	lang = langOf(obj.Label, title)
	if (title == "" || home == "") && !h.history(at) && !(h.First() && at.Before(h.Cutoff())) {
		if m := h.manifest(obj.ID); m != nil {
			if title == "" {
				title = pick(m.Label, h.lang)
				lang = langOf(m.Label, title)
			}
			if m.Homepage != "" && h.onSite(m.Homepage) {
				home = m.Homepage
			}
		}
	}
	if title == "" {
		title = old.Title
	}
	return title, home, lang
}

func pick(l iiifdoc.Label, lang string) string { return l.Pick(lang) }

// langOf is the language of the text picked from l, "" for none.
func langOf(l iiifdoc.Label, text string) string {
	for _, t := range l {
		if t.Text == text && t.Lang != "none" {
			return t.Lang
		}
	}
	return ""
}

// manifest reads a resource's Manifest for its label and home page, or
// nil when the budget of page fetches is spent or it cannot be read.
func (h *run) manifest(u string) *iiifdoc.Manifest {
	if !h.TakePageFetch() {
		return nil
	}
	resp, err := h.FetchPage(context.Background(), u)
	if err != nil {
		h.Warn("the Manifest %s could not be read for its label: %s", u, err)
		return nil
	}
	m, err := iiifdoc.ParseManifest(bytes.NewReader(resp.Body))
	if err != nil {
		h.Warn("the Manifest %s could not be read for its label: %s", u, strings.TrimPrefix(err.Error(), "iiif: "))
		return nil
	}
	return m
}

// onSite reports whether the stream speaks for u: on its host or the
// site's, or under the same registered domain (a museum's iiif. and
// www. hosts).
func (h *run) onSite(u string) bool {
	return h.OnSite(u, h.src) || urls.SameDomain(u, h.src) || urls.SameDomain(u, h.Site().URL)
}

// finish says what was left out, and hands back the state.
func (h *run) finish() {
	if h.undated > 0 {
		h.Warn("%d activities have neither endTime nor startTime, so they cannot be dated and were left out", h.undated)
	}
	for t, n := range h.skipped {
		h.Warn("%d activities are about objects of type %q, which is neither a Manifest nor a Collection; they were left out", n, t)
	}
	if h.offSite > 0 {
		h.Warn("%d activities are about objects on other sites than the stream's, which it cannot speak for; they were left out", h.offSite)
	}
	b, _ := json.Marshal(h.st)
	s := string(b)
	h.res.State = &s
	h.res.OwnWatermark = true
}
