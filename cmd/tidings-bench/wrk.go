package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// load is how wrk is run: the same for every target of a scenario.
type load struct {
	connections int
	threads     int
	duration    time.Duration // of one wrk run
}

// wrkRun is one wrk run against one URL.
type wrkRun struct {
	url    string
	header string // one extra request header, "Name: value"; empty for none
	script string // a Lua script; empty for none
}

// wrkResult is what wrk reported, or several runs against one target
// added up.
type wrkResult struct {
	Requests int64
	Elapsed  time.Duration
	P99      time.Duration // the highest of the runs'
	// Errors are socket errors (connect, read, write, timeout) and answers
	// other than 2xx and 3xx.
	Errors int64
}

// PerSecond is the request rate over all the runs.
func (r wrkResult) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// add sums another run against the same target into r.
func (r wrkResult) add(o wrkResult) wrkResult {
	return wrkResult{Requests: r.Requests + o.Requests, Elapsed: r.Elapsed + o.Elapsed,
		P99: max(r.P99, o.P99), Errors: r.Errors + o.Errors}
}

func (r wrkResult) String() string {
	s := fmt.Sprintf("%s req/s, p99 %s", thousands(r.PerSecond()), ms(r.P99))
	if r.Errors > 0 {
		s += fmt.Sprintf(", %d errors", r.Errors)
	}
	return s
}

// runWrk runs wrk once with --latency and reads its report. When stop is
// closed before the run's duration is over, wrk is interrupted, which
// makes it report what it measured until then.
func runWrk(ctx context.Context, l load, w wrkRun, stop <-chan struct{}) (wrkResult, error) {
	args := []string{"--latency", "-t", strconv.Itoa(l.threads), "-c", strconv.Itoa(l.connections),
		"-d", fmt.Sprintf("%ds", max(1, int(l.duration.Round(time.Second).Seconds())))}
	if w.header != "" {
		args = append(args, "-H", w.header)
	}
	if w.script != "" {
		args = append(args, "-s", w.script)
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "wrk", append(args, w.url)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-stop:
		cmd.Process.Signal(os.Interrupt)
		err = <-done
	}
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk %s: %w\n%s", w.url, err, out.Bytes())
	}
	res, err := parseWrk(out.String())
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk %s: %w\n%s", w.url, err, out.Bytes())
	}
	return res, nil
}

var (
	wrkTotal  = regexp.MustCompile(`^\s*(\d+) requests in ([0-9.]+[a-z]+),`)
	wrkP99    = regexp.MustCompile(`^\s*99(?:\.0+)?%\s+([0-9.]+[a-z]+)\s*$`)
	wrkSocket = regexp.MustCompile(`^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx = regexp.MustCompile(`^\s*Non-2xx or 3xx responses: (\d+)`)
)

// parseWrk reads the report wrk --latency prints.
func parseWrk(out string) (wrkResult, error) {
	var r wrkResult
	var haveTotal, haveP99 bool
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := wrkTotal.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			d, err := wrkDuration(m[2])
			if err != nil {
				return r, err
			}
			r.Requests, r.Elapsed, haveTotal = n, d, true
		} else if m := wrkP99.FindStringSubmatch(line); m != nil {
			d, err := wrkDuration(m[1])
			if err != nil {
				return r, err
			}
			r.P99, haveP99 = d, true
		} else if m := wrkSocket.FindStringSubmatch(line); m != nil {
			for _, v := range m[1:] {
				n, _ := strconv.ParseInt(v, 10, 64)
				r.Errors += n
			}
		} else if m := wrkNon2xx.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			r.Errors += n
		}
	}
	if !haveTotal || !haveP99 {
		return r, fmt.Errorf("no request count or 99th percentile in wrk's report (was it run with --latency?)")
	}
	return r, nil
}

// wrkDuration reads a time as wrk prints it: "632.00us", "12.46ms",
// "10.07s", "1.00m".
func wrkDuration(s string) (time.Duration, error) {
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("wrk time %q: %w", s, err)
			}
			return time.Duration(f * float64(u.unit)), nil
		}
	}
	return 0, fmt.Errorf("wrk time %q: unknown unit", s)
}

// thousands writes a rate rounded to a whole number, with thousands
// separated by commas.
func thousands(f float64) string {
	s := strconv.FormatInt(int64(f+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// ms writes a latency in milliseconds.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}
