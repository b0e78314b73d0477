//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tidings/db"
)

// TestServeSIGTERMDuringCostlyRules: a site whose pages nest 60 divs, and
// a rule stored before rules were bounded that cascadia's matching never
// finished on such pages ("x * * * * * * * * * * * * *"). serve's
// harvest switches the rule off, says why, and SIGTERM during the harvest
// stops serve within its grace period, exit 0.
func TestServeSIGTERMDuringCostlyRules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and signals the binary; skipped with -short")
	}
	var pageHits atomic.Int64
	var version atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			var b strings.Builder
			b.WriteString("<!doctype html><title>Deep</title><h1>Deep pages</h1><p>")
			for i := range 10 {
				fmt.Fprintf(&b, `<a href="/p%d.html">page %d</a> `, i, i)
			}
			fmt.Fprint(w, b.String()+"</p>")
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/p") {
			http.NotFound(w, r)
			return
		}
		pageHits.Add(1)
		time.Sleep(50 * time.Millisecond) // so that SIGTERM finds the harvest under way
		fmt.Fprintf(w, "<!doctype html><title>%s</title><body>%s<p>Page %s, version %d.</p>%s</body>",
			r.URL.Path, strings.Repeat("<div>", 60), r.URL.Path, version.Load(), strings.Repeat("</div>", 60))
	}))
	t.Cleanup(srv.Close)

	bin := buildTidings(t)
	path := filepath.Join(t.TempDir(), "tidings.db")
	d := newCrashDB(t, bin, path, "TIDINGS_INTERVAL=1ms")
	d.run("follow", srv.URL+"/")
	const stale = "x * * * * * * * * * * * * *"
	ctx := context.Background()
	store, err := db.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	site, err := store.SiteByURL(ctx, srv.URL+"/")
	if err == nil {
		_, err = store.AddIgnoreRule(ctx, site.ID, 0, db.IgnoreCSS, stale, time.Now())
	}
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	version.Store(2)

	before := pageHits.Load()
	cmd := d.command("serve", "--addr", freeAddr(t), "--interval", "24h")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for pageHits.Load() == before {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("serve's harvest read no page in 30 s\nstderr:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	terminate(t, cmd, exited, &stderr)

	store, err = db.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rules, err := store.IgnoreRules(ctx, site.ID)
	if err != nil || len(rules) != 1 {
		t.Fatalf("rules %+v, %v; want the one stored", rules, err)
	}
	if !strings.Contains(rules[0].OffReason, "has 14 parts") {
		t.Errorf("the rule's reason is %q, want it switched off for its 14 parts", rules[0].OffReason)
	}
}
