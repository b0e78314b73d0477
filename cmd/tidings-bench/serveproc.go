package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serveProc is a running `tidings serve`, as deployed: scheduler on, on a
// loopback port, its log in a file.
type serveProc struct {
	cmd  *exec.Cmd
	addr string
	log  string
	done chan error
}

// startServe starts serve with env and waits until it answers.
func startServe(ctx context.Context, bin string, env []string, logPath string) (*serveProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own copy
	s := &serveProc{addr: fmt.Sprintf("127.0.0.1:%d", port), log: logPath, done: make(chan error, 1)}
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", s.addr)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	// SIGTERM shuts serve down gracefully.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start tidings serve: %w", err)
	}
	s.cmd = cmd
	go func() { s.done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("tidings serve stopped at start: %v\n%s", err, b)
		default:
		}
		if resp, err := http.Get(s.url("/healthz")); err == nil {
			resp.Body.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.close()
	return nil, fmt.Errorf("tidings serve did not answer on %s within 30 s", s.addr)
}

func (s *serveProc) url(path string) string { return "http://" + s.addr + path }

// close stops serve gracefully, as SIGTERM from systemd would.
func (s *serveProc) close() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// memory reads the process's resident set size now and its peak so far,
// in bytes, from /proc.
func (s *serveProc) memory() (rss, peak int64, err error) {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(s.cmd.Process.Pid), "status"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch {
		case name != "VmRSS" && name != "VmHWM":
		case err != nil:
			return 0, 0, fmt.Errorf("/proc status %s: %q", name, value)
		case name == "VmRSS":
			rss = kb << 10
		default:
			peak = kb << 10
		}
	}
	if rss == 0 || peak == 0 {
		return 0, 0, fmt.Errorf("no VmRSS or VmHWM in /proc/%d/status", s.cmd.Process.Pid)
	}
	return rss, peak, sc.Err()
}
