package web

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prismProxy starts Stoplight Prism's proxy in front of upstream, with
// the API's document, and returns its address; "" when Prism is not
// installed (under CI=true that fails the test: CI must run it). Prism
// checks every request and answer against the document and names what
// does not match in an sl-violations header, which apiClient reads.
func prismProxy(t *testing.T, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("prism")
	if err != nil {
		msg := "no prism found: the API's traffic is checked by kin-openapi only (npm install -g @stoplight/prism-cli)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Log(msg)
		return ""
	}
	spec := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(spec, openAPIYAML, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "proxy", spec, upstream+apiPrefix, "--host", "127.0.0.1", "--port", fmt.Sprint(port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan struct{})
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		once := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "Prism is listening") {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatalf("prism did not start in 60 s:\n%s", log.String())
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// prismViolation is one entry of Prism's sl-violations header.
type prismViolation struct {
	Location []string `json:"location"`
	Severity string   `json:"severity"`
	Code     any      `json:"code"`
	Message  string   `json:"message"`
}

// prismViolations reads what Prism found wrong with an exchange: those
// of the request, and those of the answer.
func prismViolations(t *testing.T, h http.Header) (request, answer []prismViolation) {
	t.Helper()
	raw := h.Get("sl-violations")
	if raw == "" {
		return nil, nil
	}
	var all []prismViolation
	if err := json.Unmarshal([]byte(raw), &all); err != nil {
		t.Fatalf("sl-violations %q: %v", raw, err)
	}
	for _, v := range all {
		if len(v.Location) > 0 && v.Location[0] == "response" {
			answer = append(answer, v)
		} else {
			request = append(request, v)
		}
	}
	return request, answer
}
