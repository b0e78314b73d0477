package publish_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"tidings/fetch"
	"tidings/publish"
)

// recorder is a loopback endpoint that keeps every request's body and
// answers with status.
type recorder struct {
	mu     sync.Mutex
	bodies []string
	types  []string
	status int
	srv    *httptest.Server
}

func newRecorder(t *testing.T, status int) *recorder {
	r := &recorder{status: status}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, string(b))
		r.types = append(r.types, req.Method+" "+req.Header.Get("Content-Type"))
		r.mu.Unlock()
		w.WriteHeader(r.status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}

func loopbackClient() *fetch.Client {
	return fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
}

const key = "0123456789abcdef0123"

// TestPingsTellOfRealChangesOnly: IndexNow gets one POST with the changed
// URLs, the hub one ping per changed collection's change list and feed,
// and neither hears anything from a run without changes.
func TestPingsTellOfRealChangesOnly(t *testing.T) {
	indexNow, hub := newRecorder(t, http.StatusAccepted), newRecorder(t, http.StatusNoContent)
	dir := t.TempDir()
	writeSite(t, dir, feedSite())
	o := publish.Options{Dir: dir, Collections: []string{"", "gallery"}, Pings: publish.PingOptions{
		Client: loopbackClient(), IndexNowKey: key, IndexNowEndpoint: indexNow.srv.URL + "/indexnow", WebSubHub: hub.srv.URL + "/hub",
	}}
	res := publishAt(t, o, "2026-03-01T10:00:00Z")
	if len(indexNow.got())+len(hub.got()) != 0 || len(res.Pings) != 0 {
		t.Fatalf("a first run without changes pinged: %q %q %v", indexNow.got(), hub.got(), res.Pings)
	}
	if b, err := os.ReadFile(filepath.Join(dir, key+".txt")); err != nil || string(b) != key {
		t.Fatalf("key file: %q %v", b, err)
	}

	writeSite(t, dir, map[string]string{"cats.html": page("Cats", "", "New cats."), "gallery/c.html": page("Gallery C", "", "A sketch.")})
	os.Remove(filepath.Join(dir, "about.html"))
	res = publishAt(t, o, "2026-03-02T10:00:00Z")
	sent := indexNow.got()
	if len(sent) != 1 || indexNow.types[0] != "POST application/json; charset=utf-8" {
		t.Fatalf("IndexNow got %q (%q)", sent, indexNow.types)
	}
	var sub struct {
		Host, Key, KeyLocation string
		URLList                []string
	}
	if err := json.Unmarshal([]byte(sent[0]), &sub); err != nil {
		t.Fatal(err)
	}
	wantURLs := []string{base + "about.html", base + "cats.html", base + "gallery/c.html"}
	if sub.Host != "example.org" || sub.Key != key || sub.KeyLocation != base+key+".txt" || !reflect.DeepEqual(sub.URLList, wantURLs) {
		t.Errorf("IndexNow submission %+v, want the URLs %q", sub, wantURLs)
	}
	var topics []string
	for _, b := range hub.got() {
		form, _ := url.ParseQuery(b)
		if form.Get("hub.mode") != "publish" {
			t.Errorf("hub ping %q", b)
		}
		topics = append(topics, form.Get("hub.url"))
	}
	slices.Sort(topics)
	var wantTopics []string
	for _, folder := range []string{"resourcesync/", "resourcesync/gallery/"} {
		for _, name := range []string{"changelist.xml", "changes.atom", "changes.json"} {
			wantTopics = append(wantTopics, base+folder+name)
		}
	}
	if !reflect.DeepEqual(topics, wantTopics) {
		t.Errorf("hub topics %q, want %q", topics, wantTopics)
	}
	if len(res.Pings) != 2 || res.Pings[0].Err != nil || res.Pings[1].Err != nil || res.Pings[0].Status != http.StatusAccepted {
		t.Errorf("pings %+v", res.Pings)
	}
	atom, _ := os.ReadFile(filepath.Join(dir, "resourcesync", "changes.atom"))
	if !strings.Contains(string(atom), `<link href="`+hub.srv.URL+`/hub" rel="hub">`) {
		t.Errorf("the feed names no hub:\n%s", atom)
	}

	res = publishAt(t, o, "2026-03-03T10:00:00Z")
	if len(indexNow.got()) != 1 || len(hub.got()) != 6 || len(res.Pings) != 0 {
		t.Errorf("a run without changes pinged: %d IndexNow, %d hub requests, %v", len(indexNow.got()), len(hub.got()), res.Pings)
	}
}

// TestFailingPingsAreReportedNotFatal: endpoints that refuse, or are not
// there at all, are named in the result, and the run's documents are
// written all the same.
func TestFailingPingsAreReportedNotFatal(t *testing.T) {
	refusing := newRecorder(t, http.StatusForbidden)
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL + "/hub"
	gone.Close()
	dir := t.TempDir()
	writeSite(t, dir, feedSite())
	o := publish.Options{Dir: dir, Pings: publish.PingOptions{
		Client: loopbackClient(), IndexNowKey: key, IndexNowEndpoint: refusing.srv.URL, WebSubHub: goneURL,
	}}
	publishAt(t, o, "2026-03-01T10:00:00Z")
	writeSite(t, dir, map[string]string{"cats.html": page("Cats", "", "New cats.")})
	res := publishAt(t, o, "2026-03-02T10:00:00Z")
	if len(res.Pings) != 2 || res.Collections[0].Updated != 1 {
		t.Fatalf("pings %v, result %+v", res.Pings, res.Collections)
	}
	in, ws := res.Pings[0], res.Pings[1]
	if in.Status != http.StatusForbidden || in.Err == nil || !strings.Contains(in.String(), "not taken") || !strings.Contains(in.String(), "403") {
		t.Errorf("IndexNow refusing: %s", in)
	}
	if ws.Err == nil || !strings.Contains(ws.String(), "WebSub: 3 topic(s) sent to "+goneURL+", not taken") {
		t.Errorf("hub gone: %s", ws)
	}
	if cl := readDoc(t, dir, "resourcesync/changelist.xml"); len(cl.Entries) != 1 {
		t.Errorf("the change list has %d entries", len(cl.Entries))
	}
}

// TestIndexNowKeyIsChecked: a key IndexNow would refuse is refused before
// anything is written.
func TestIndexNowKeyIsChecked(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, feedSite())
	_, err := publish.Publish(t.Context(), publish.Options{Dir: dir, BaseURL: base, Pings: publish.PingOptions{Client: loopbackClient(), IndexNowKey: "short"}})
	if err == nil || !strings.Contains(err.Error(), "--indexnow-key must be 8 to 128") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "resourcesync")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote: %v", err)
	}
}
