package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	"tidings/internal/checksite"
	"tidings/sitecheck"
)

func checkPath(u string) string { return "/check?url=" + url.QueryEscape(u) }

func TestCheckPageNamesEachProblemAndStoresNothing(t *testing.T) {
	t.Parallel()
	docs := checksite.Bad(time.Now())
	// A value from the site that would be markup if it were not escaped.
	docs["/shrine/changes.xml"] = strings.Replace(docs["/shrine/changes.xml"], `change="renamed"`, `change="&lt;script&gt;alert(1)&lt;/script&gt;"`, 1)
	site := checksite.Serve(docs)
	t.Cleanup(site.Close)
	a := newUIApp(t, nil, Options{})
	before, err := a.store.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rec := a.client(t, "192.0.2.1").get(checkPath(site.URL))
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d\n%s", rec.Code, body)
	}
	// The codes the sources give these problems, as scripts read them.
	for _, code := range []string{"no-describes", "no-up", "no-datetime", "unknown-change", "future-dates", "no-change", "scp-invalid", "arc-invalid"} {
		if !strings.Contains(body, `data-code="`+code+`"`) {
			t.Errorf("the page names no %s problem", code)
		}
	}
	for _, want := range []string{
		"tidings can follow this site (2 collections), but it has 10 problems to fix.",
		"Fix: Add datetime=&#34;…&#34; (when the change was made",
		"change=&#34;&lt;script&gt;alert(1)&lt;/script&gt;&#34;",
		site.URL + "/scp/blog.scp</a>, line 2",
		`<a href="` + testBase + `check">Check a site</a>`,
		// A crawler following a link to a result must not check the site
		// again and again.
		`<meta name="robots" content="noindex, nofollow">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>alert(1)") {
		t.Error("the site's text reached the page unescaped")
	}
	after, err := a.store.Counts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("the check changed the database: %v, then %v", before, after)
	}
}

func TestCheckPageFormAndBadAddresses(t *testing.T) {
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
	a := newUIApp(t, store, Options{Follow: followWith(store, h, follow.Options{}), Checker: sitecheck.New(h)})
	c := a.client(t, "192.0.2.2")
	rec := c.get("/check")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `<input type="url" id="url" name="url"`) {
		t.Errorf("form: %d\n%s", rec.Code, rec.Body)
	}
	if rec := c.get("/"); !strings.Contains(rec.Body.String(), `href="`+testBase+`check">Check what tidings finds on it</a>`) {
		t.Errorf("the landing page does not link the check:\n%s", rec.Body)
	}
	for u, want := range map[string]string{
		"http://127.0.0.1:9/":       "This address points to a loopback address (127.0.0.1), which tidings does not fetch from.",
		"ftp://example.org/":        "is not an http or https address",
		"https://user:pw@example/x": "contains a user name",
	} {
		rec := c.get(checkPath(u))
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d, want 422 saying %q\n%s", u, rec.Code, want, rec.Body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 0 {
		t.Errorf("connections attempted: %q", dialed)
	}
}

func TestCheckPageIsRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	site := checksite.Serve(map[string]string{})
	t.Cleanup(site.Close)
	a := newUIApp(t, nil, Options{})
	c := a.client(t, "192.0.2.3")
	for i := range checkRate {
		if rec := c.get(checkPath(site.URL)); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "tidings cannot follow this site") {
			t.Fatalf("check %d: %d\n%s", i+1, rec.Code, rec.Body)
		}
	}
	rec := c.get(checkPath(site.URL))
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "60" ||
		!strings.Contains(rec.Body.String(), "You have checked several sites in the last minute. Wait a minute, then check again.") ||
		!strings.Contains(rec.Body.String(), "<title>Check a site · tidings</title>") {
		t.Errorf("check %d: %d, Retry-After %q\n%s", checkRate+1, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if rec := a.client(t, "192.0.2.4").get(checkPath(site.URL)); rec.Code != http.StatusOK {
		t.Errorf("another address: %d", rec.Code)
	}
}

func TestCheckPageRunsFewChecksAtOnce(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := checksite.Serve(map[string]string{})
	t.Cleanup(slow.Close)
	slow.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.NotFound(w, r)
	})
	a := newUIApp(t, nil, Options{})
	a.srv.checks = newCheckGate(checkRate, 1, 200*time.Millisecond)
	done := make(chan int)
	go func() { done <- a.client(t, "192.0.2.5").get(checkPath(slow.URL)).Code }()
	<-arrived
	rec := a.client(t, "192.0.2.6").get(checkPath(slow.URL))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "tidings is busy checking other sites. Try again in a minute.") {
		t.Errorf("a check while another runs: %d\n%s", rec.Code, rec.Body)
	}
	close(release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the first check: %d", code)
	}
	if rec := a.client(t, "192.0.2.6").get(checkPath(slow.URL)); rec.Code != http.StatusOK {
		t.Errorf("a check once the other is done: %d", rec.Code)
	}
}
