package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseProcStatus(t *testing.T) {
	f, err := os.Open("testdata/proc-status.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rss, peak, err := parseProcStatus(f)
	if err != nil || rss != 463312<<10 || peak != 509304<<10 {
		t.Errorf("VmRSS %d, VmHWM %d, %v; want %d and %d", rss, peak, err, 463312<<10, 509304<<10)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 kB\n", "VmRSS:\tmany kB\nVmHWM:\t1 kB\n"} {
		if _, _, err := parseProcStatus(strings.NewReader(bad)); err == nil {
			t.Errorf("%q was read without error", bad)
		}
	}
	// Our own, as a live check of the format.
	if rss, peak, err := procMemory(os.Getpid()); err != nil || rss <= 0 || peak < rss {
		t.Errorf("this process: VmRSS %d, VmHWM %d, %v", rss, peak, err)
	}
}

func TestRunMeasured(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	ctx := context.Background()
	res, err := runMeasured(ctx, exec.Command("sh", "-c", "echo; echo '  first line  '; echo second; exit 3"), 10*time.Second, rssGuard)
	if err != nil {
		t.Fatal(err)
	}
	// Maxrss comes in KiB: a shell is more than 100 KiB and less than 100 MB.
	if !res.ok() || res.exit != 3 || res.peak < 100<<10 || res.peak > 100e6 {
		t.Errorf("ok %v, exit %d, peak %d", res.ok(), res.exit, res.peak)
	}
	if got := firstLine(res.output, 80); got != "first line" {
		t.Errorf("first line %q", got)
	}
	if got := res.ending(); got != "exit 3" {
		t.Errorf("ending %q", got)
	}

	start := time.Now()
	res, err = runMeasured(ctx, exec.Command("sleep", "10"), 100*time.Millisecond, rssGuard)
	if err != nil || !res.timedOut || res.guarded || res.exit != -1 || time.Since(start) > 5*time.Second {
		t.Errorf("timeout: %+v, %v after %s", res, err, time.Since(start))
	}
	if !strings.Contains(res.ending(), "timeout") {
		t.Errorf("ending %q", res.ending())
	}

	res, err = runMeasured(ctx, exec.Command("sleep", "10"), 10*time.Second, 1)
	if err != nil || !res.guarded || res.timedOut || res.ok() || time.Since(start) > 5*time.Second {
		t.Errorf("guard: %+v, %v", res, err)
	}
	if !strings.Contains(res.ending(), "bound") {
		t.Errorf("ending %q", res.ending())
	}
}

func TestHeadBuffer(t *testing.T) {
	b := &headBuffer{max: 10}
	for _, s := range []string{"0123", "456789ab", "cd"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Errorf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if b.String() != "0123456789" || b.dropped != 4 {
		t.Errorf("kept %q, dropped %d", b.String(), b.dropped)
	}
}

func TestFirstLine(t *testing.T) {
	out := "\n  \nhttp://127.0.0.1:40123/: 1 collection(s); problem: the change list at http://127.0.0.1:40123/changes.xml " + strings.Repeat("é", 200) + "\nnext\n"
	got := firstLine([]byte(out), 60)
	want := "SITE/: 1 collection(s); problem: the change list at SITE/cha…"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if firstLine([]byte("\n\n"), 10) != "" {
		t.Error("blank output gave a line")
	}
}

// TestRunMeasuredCountsReads: a run's bytes read are the kernel's count,
// final at its exit.
func TestRunMeasuredCountsReads(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command("sh", "-c", "read x")
	cmd.Stdin = strings.NewReader(strings.Repeat("x", 100_000) + "\n")
	res, err := runMeasured(context.Background(), cmd, 10*time.Second, rssGuard)
	if err != nil {
		t.Fatal(err)
	}
	if res.read < 100_001 {
		t.Errorf("read %d bytes, want at least the 100,001 of its standard input", res.read)
	}
}
