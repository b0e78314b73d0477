package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// rssGuard is the resident set at which the harness kills a tidings it
// measures. The target is 300 MB; before the hardening, one hostile
// sitemap took 6.6 GB, which on a shared machine without swap would take
// others' memory too. A killed run fails its row whatever it would have
// reached.
const rssGuard = 2e9

// runResult is how one measured run of a tidings command ended.
type runResult struct {
	peak     int64 // bytes: the kernel's high-water mark of its resident set
	wall     time.Duration
	cpu      time.Duration // user and system time, which a loaded machine does not inflate as it does wall time
	read     int64         // bytes it read, the kernel's count at its exit (procRead); -1 when unknown
	exit     int           // -1 when killed
	timedOut bool          // killed at the timeout
	guarded  bool          // killed at guard
	timeout  time.Duration
	guard    int64
	output   []byte
}

// runMeasured runs cmd (not yet started) for at most timeout, killing it
// sooner when its resident set passes guard, and returns its peak memory
// from the kernel's accounting once it has ended. Its output, standard
// output and error together, is kept up to 64 KiB: a hostile site's URL
// may be megabytes long.
func runMeasured(ctx context.Context, cmd *exec.Cmd, timeout time.Duration, guard int64) (runResult, error) {
	out := &headBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return runResult{}, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	done := make(chan struct{})
	res := runResult{timeout: timeout, guard: guard, read: -1}
	go func() {
		// Read before the process is reaped, when the count is final.
		if waitExited(cmd.Process.Pid) == nil {
			if n, err := procRead(cmd.Process.Pid); err == nil {
				res.read = n
			}
		}
		cmd.Wait()
		close(done)
	}()
	res.timedOut, res.guarded = watch(ctx, cmd.Process, done, timeout, guard)
	res.wall = time.Since(start)
	res.output = out.Bytes()
	res.exit = cmd.ProcessState.ExitCode()
	res.peak = maxRSS(cmd.ProcessState)
	res.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return res, ctx.Err()
}

// ok reports whether the run ended by itself.
func (r runResult) ok() bool { return !r.timedOut && !r.guarded }

// ending says how a run ended: its exit status, or why it was killed.
func (r runResult) ending() string {
	switch {
	case r.guarded:
		return fmt.Sprintf("killed past the harness's bound of %s", mb(r.guard))
	case r.timedOut:
		return fmt.Sprintf("killed at the %s timeout", secs(r.timeout))
	}
	return fmt.Sprintf("exit %d", r.exit)
}

// watch polls p's resident set until done is closed, killing p when it
// passes guard, when timeout has passed or when ctx ends; it returns
// which of the first two happened.
func watch(ctx context.Context, p *os.Process, done <-chan struct{}, timeout time.Duration, guard int64) (timedOut, guarded bool) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case <-done:
			return timedOut, guarded
		case <-ctx.Done():
			p.Kill()
			<-done
			return timedOut, guarded
		case <-deadline.C:
			timedOut = true
			p.Kill()
		case <-tick.C:
			if rss, _, err := procMemory(p.Pid); err == nil && rss > guard && !guarded {
				guarded = true
				p.Kill()
			}
		}
	}
}

// maxRSS is the peak resident set of an ended process, in bytes: Linux
// gives rusage's Maxrss in KiB.
func maxRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return int64(ru.Maxrss) << 10
}

// procMemory reads a running process's resident set now and its peak so
// far, in bytes, from /proc.
func procMemory(pid int) (rss, peak int64, err error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return parseProcStatus(f)
}

// parseProcStatus reads VmRSS and VmHWM from a /proc/PID/status, in bytes.
func parseProcStatus(r io.Reader) (rss, peak int64, err error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		if name != "VmRSS" && name != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc status %s: %q", name, value)
		}
		if name == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if rss == 0 || peak == 0 {
		return 0, 0, fmt.Errorf("no VmRSS or VmHWM in /proc status")
	}
	return rss, peak, nil
}

// headBuffer keeps the first max bytes written to it and counts the rest.
type headBuffer struct {
	bytes.Buffer
	max     int
	dropped int64
}

func (b *headBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := max(b.max-b.Len(), 0); room < n {
		b.dropped += int64(n - room)
		p = p[:room]
	}
	b.Buffer.Write(p)
	return n, nil
}

// loopbackOrigin is a hostile site's origin in what tidings prints.
var loopbackOrigin = regexp.MustCompile(`https?://127\.0\.0\.1:[0-9]+`)

// firstLine is the first non-blank line of out, at most n runes, with a
// loopback origin written as "SITE" so that the table does not change
// with the ports a run was given.
func firstLine(out []byte, n int) string {
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		line = loopbackOrigin.ReplaceAllString(line, "SITE")
		if r := []rune(line); len(r) > n {
			line = string(r[:n]) + "…"
		}
		return line
	}
	return ""
}
