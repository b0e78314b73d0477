package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// serveProc is a running `tidings serve`, as deployed: scheduler on, on a
// loopback port, its log in a file.
type serveProc struct {
	cmd  *exec.Cmd
	addr string
	log  string
	done chan struct{} // closed when serve has ended
}

// startServe starts serve with env and args and waits until it answers.
func startServe(ctx context.Context, bin string, env []string, logPath string, args ...string) (*serveProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own copy
	s := &serveProc{addr: fmt.Sprintf("127.0.0.1:%d", port), log: logPath, done: make(chan struct{})}
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", s.addr}, args...)...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, log, log
	// SIGTERM shuts serve down gracefully.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start tidings serve: %w", err)
	}
	s.cmd = cmd
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("tidings serve stopped at start: %v\n%s", waitErr, b)
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

// exited reports whether serve has ended.
func (s *serveProc) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// guard kills serve when its resident set passes limit, until the
// returned stop is called; stop reports whether it did.
func (s *serveProc) guard(limit int64) (stop func() (killed bool)) {
	quit := make(chan struct{})
	var killed atomic.Bool
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-s.done:
				return
			case <-t.C:
				if rss, _, err := s.memory(); err == nil && rss > limit {
					killed.Store(true)
					s.cmd.Process.Kill()
					return
				}
			}
		}
	}()
	return func() bool { close(quit); return killed.Load() }
}

// memory reads the process's resident set size now and its peak so far,
// in bytes, from /proc.
func (s *serveProc) memory() (rss, peak int64, err error) {
	return procMemory(s.cmd.Process.Pid)
}
