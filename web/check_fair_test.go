package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/sitecheck"
)

// heldChecks is a harvester whose checks run until the test lets each
// one end; it reports each check's site as it starts. It fetches nothing.
type heldChecks struct {
	*harvest.Harvester
	started chan string
	mu      sync.Mutex
	gates   map[string]chan struct{}
}

func (h *heldChecks) gate(site string) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gates[site] == nil {
		h.gates[site] = make(chan struct{})
	}
	return h.gates[site]
}

func (h *heldChecks) Check(ctx context.Context, rawURL string, _ sitecheck.Options) (*sitecheck.Report, error) {
	h.started <- rawURL
	select {
	case <-h.gate(rawURL):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &sitecheck.Report{Site: rawURL, Checked: time.Now()}, nil
}

// end lets the check of site end, or never hold it if it has not begun.
func (h *heldChecks) end(site string) { close(h.gate(site)) }

// checkServer is tidings over real HTTP on loopback, believing the
// X-Forwarded-For of its loopback clients so that a test can speak as many
// clients, IPv6 ones too.
type checkServer struct {
	*httptest.Server
	app    *uiApp
	checks *heldChecks
}

func newCheckServer(t *testing.T, slots int, patience time.Duration) *checkServer {
	t.Helper()
	_, lo, _ := net.ParseCIDR("127.0.0.1/32")
	store := openStore(t)
	h := &heldChecks{
		Harvester: harvest.New(fetch.NewClient(fetch.ClientOptions{AllowPrivate: true}), store, harvest.Options{}),
		started:   make(chan string, 16), gates: map[string]chan struct{}{},
	}
	a := newUIApp(t, store, Options{Checker: h, TrustedProxies: []*net.IPNet{lo}})
	a.srv.checks = newCheckGate(checkRate, slots, patience)
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	return &checkServer{Server: srv, app: a, checks: h}
}

type checkAnswer struct {
	code  int
	retry string
	body  string
}

// check asks for the check of site as the client at from.
func (s *checkServer) check(t *testing.T, from, site string) checkAnswer {
	req, err := http.NewRequest(http.MethodGet, s.URL+checkPath(site), nil)
	if err != nil {
		t.Error(err)
		return checkAnswer{}
	}
	req.Header.Set("X-Forwarded-For", from)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return checkAnswer{}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return checkAnswer{resp.StatusCode, resp.Header.Get("Retry-After"), string(body)}
}

// send asks in the background, and returns once the check is running or
// waiting in line.
func (s *checkServer) send(t *testing.T, from, site string) <-chan checkAnswer {
	t.Helper()
	q := s.app.srv.checks.queue
	q.mu.Lock()
	before := q.nwait + q.nrun
	q.mu.Unlock()
	out := make(chan checkAnswer, 1)
	go func() { out <- s.check(t, from, site) }()
	waitUntil(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.nwait+q.nrun > before
	})
	return out
}

// nextStart is the site of the next check to start; "" if none starts
// within wait.
func (s *checkServer) nextStart(wait time.Duration) string {
	select {
	case site := <-s.checks.started:
		return site
	case <-time.After(wait):
		return ""
	}
}

// TestCheckPageServesClientsInTurn: one client's second check waits
// behind the other clients' first ones, whatever order the requests came
// in; an IPv6 client is one client across its /64.
func TestCheckPageServesClientsInTurn(t *testing.T) {
	t.Parallel()
	s := newCheckServer(t, 1, 10*time.Second)
	const a, b, b2, c = "198.51.100.1", "2001:db8:1:2::1", "2001:db8:1:2:ffff::2", "198.51.100.3"
	answers := []<-chan checkAnswer{s.send(t, a, "https://a1.example/")}
	if got := s.nextStart(5 * time.Second); got != "https://a1.example/" {
		t.Fatalf("first check started: %q", got)
	}
	for _, r := range []struct{ from, site string }{
		{a, "https://a2.example/"}, {b, "https://b1.example/"}, {c, "https://c1.example/"}, {b2, "https://b2.example/"},
	} {
		answers = append(answers, s.send(t, r.from, r.site))
	}
	order := []string{"https://a1.example/"}
	for range 4 {
		s.checks.end(order[len(order)-1])
		next := s.nextStart(5 * time.Second)
		if next == "" {
			t.Fatalf("no check started after %v", order)
		}
		order = append(order, next)
	}
	s.checks.end(order[len(order)-1])
	want := "https://a1.example/ https://b1.example/ https://c1.example/ https://a2.example/ https://b2.example/"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("checks ran in the order\n%s\nwant\n%s", got, want)
	}
	for i, ch := range answers {
		if ans := <-ch; ans.code != http.StatusOK {
			t.Errorf("check %d: %d\n%s", i, ans.code, ans.body)
		}
	}
}

// TestCheckPageLimitsIPv6ClientsPerSlash64: the addresses of one /64 share
// one rate and one running check; the next /64 is another client.
func TestCheckPageLimitsIPv6ClientsPerSlash64(t *testing.T) {
	t.Parallel()
	s := newCheckServer(t, 2, 10*time.Second)
	for i, from := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:abcd::3"} {
		site := "https://rate" + string(rune('a'+i)) + ".example/"
		s.checks.end(site)
		if ans := s.check(t, from, site); ans.code != http.StatusOK {
			t.Fatalf("check %d from %s: %d", i+1, from, ans.code)
		}
		<-s.checks.started
	}
	if ans := s.check(t, "2001:db8:1:2:ffff:ffff:ffff:ffff", "https://rated.example/"); ans.code != http.StatusTooManyRequests ||
		!strings.Contains(ans.body, "You have checked several sites in the last minute.") {
		t.Errorf("a fourth check from the same /64: %d, want 429", ans.code)
	}
	s.checks.end("https://next.example/")
	if ans := s.check(t, "2001:db8:1:3::1", "https://next.example/"); ans.code != http.StatusOK {
		t.Errorf("a check from the next /64: %d, want 200", ans.code)
	}
	<-s.checks.started

	// Two slots, but one /64 runs one check at a time.
	first := s.send(t, "2001:db8:5:6::1", "https://one.example/")
	if got := s.nextStart(5 * time.Second); got != "https://one.example/" {
		t.Fatalf("started %q", got)
	}
	second := s.send(t, "2001:db8:5:6::2", "https://two.example/")
	if got := s.nextStart(100 * time.Millisecond); got != "" {
		t.Fatalf("%s runs beside its /64's other check", got)
	}
	other := s.send(t, "198.51.100.9", "https://other.example/")
	if got := s.nextStart(5 * time.Second); got != "https://other.example/" {
		t.Fatalf("another client's check did not take the free slot: %q", got)
	}
	s.checks.end("https://one.example/")
	if got := s.nextStart(5 * time.Second); got != "https://two.example/" {
		t.Fatalf("after the /64's first check, %q started", got)
	}
	s.checks.end("https://two.example/")
	s.checks.end("https://other.example/")
	for _, ch := range []<-chan checkAnswer{first, second, other} {
		if ans := <-ch; ans.code != http.StatusOK {
			t.Errorf("%d\n%s", ans.code, ans.body)
		}
	}
}

// TestCheckPageSaysBusyAfterABoundedWait: a check that waits past the
// patience gets a page saying why, and when to come back.
func TestCheckPageSaysBusyAfterABoundedWait(t *testing.T) {
	t.Parallel()
	s := newCheckServer(t, 1, 300*time.Millisecond)
	held := s.send(t, "198.51.100.1", "https://held.example/")
	s.nextStart(5 * time.Second)
	start := time.Now()
	ans := s.check(t, "198.51.100.2", "https://waits.example/")
	if waited := time.Since(start); ans.code != http.StatusServiceUnavailable || ans.retry != "60" || waited < 300*time.Millisecond ||
		!strings.Contains(ans.body, "tidings is busy checking other sites. Try again in a minute.") {
		t.Errorf("after %v: %d, Retry-After %q\n%s", waited, ans.code, ans.retry, ans.body)
	}
	ans = s.check(t, "198.51.100.1", "https://again.example/")
	if ans.code != http.StatusServiceUnavailable || !strings.Contains(ans.body, "Your other check is still running") {
		t.Errorf("a second check beside one's own: %d\n%s", ans.code, ans.body)
	}
	s.checks.end("https://held.example/")
	if ans := <-held; ans.code != http.StatusOK {
		t.Errorf("the held check: %d", ans.code)
	}
}

// TestCheckPageCountsRefusedAddresses: checks of addresses the harvester
// refuses use up the rate like any other, and still connect nowhere.
func TestCheckPageCountsRefusedAddresses(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var dialed []string
	client := fetch.NewClient(fetch.ClientOptions{DialHook: func(_, address string) {
		mu.Lock()
		dialed = append(dialed, address)
		mu.Unlock()
	}})
	store := openStore(t)
	h := harvest.New(client, store, harvest.Options{})
	a := newUIApp(t, store, Options{Follow: follow.New(store, h, follow.Options{}), Checker: sitecheck.New(h)})
	srv := httptest.NewServer(a.h)
	t.Cleanup(srv.Close)
	get := func(site string) (int, string) {
		resp, err := http.Get(srv.URL + checkPath(site))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, site := range []string{"http://127.0.0.1:9/", "http://10.0.0.1/", "http://[::1]:9/"} {
		if code, body := get(site); code != http.StatusUnprocessableEntity || !strings.Contains(body, "which tidings does not fetch from") {
			t.Errorf("%s: %d\n%s", site, code, body)
		}
	}
	if code, body := get("http://192.168.1.1/"); code != http.StatusTooManyRequests || !strings.Contains(body, "You have checked several sites in the last minute.") {
		t.Errorf("a fourth check: %d, want 429\n%s", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 0 {
		t.Errorf("connections attempted: %q", dialed)
	}
}
