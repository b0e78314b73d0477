package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// nginxProc is an nginx of the harness's own: its config, pid file, logs
// and temporary files in one directory, in the foreground, serving that
// directory's www/ on a loopback port.
type nginxProc struct {
	cmd  *exec.Cmd
	dir  string
	addr string
	done chan error
}

// startNginx serves files (name → content) as static files. nginx never
// runs as root: when the harness does, it is started as nobody.
func startNginx(ctx context.Context, files map[string][]byte) (*nginxProc, error) {
	dir, err := os.MkdirTemp("", "tidings-bench-nginx-")
	if err != nil {
		return nil, err
	}
	n := &nginxProc{dir: dir, done: make(chan error, 1)}
	if err := n.start(ctx, files); err != nil {
		n.close()
		return nil, err
	}
	return n, nil
}

func (n *nginxProc) start(ctx context.Context, files map[string][]byte) error {
	www := filepath.Join(n.dir, "www")
	for _, d := range []string{www, filepath.Join(n.dir, "temp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(www, name), b, 0o644); err != nil {
			return err
		}
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	n.addr = fmt.Sprintf("127.0.0.1:%d", port)
	bin, err := nginxPath()
	if err != nil {
		return err
	}
	version, err := exec.CommandContext(ctx, bin, "-V").CombinedOutput()
	if err != nil {
		return fmt.Errorf("nginx -V: %w\n%s", err, version)
	}
	conf := filepath.Join(n.dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConfig(n.dir, n.addr, string(version))), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "-p", n.dir, "-c", conf, "-e", filepath.Join(n.dir, "error.log"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	// SIGTERM, not the default SIGKILL: nginx stops its workers then.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if os.Geteuid() == 0 {
		if err := dropToNobody(cmd, n.dir); err != nil {
			return err
		}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start nginx: %w", err)
	}
	n.cmd = cmd
	go func() { n.done <- cmd.Wait() }()
	return n.waitReady()
}

// dropToNobody runs cmd as the nobody user, which then owns dir.
func dropToNobody(cmd *exec.Cmd, dir string) error {
	u, err := user.Lookup("nobody")
	if err != nil {
		return fmt.Errorf("nginx must not run as root, and there is no nobody user to run it as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	err = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, uid, gid)
	})
	if err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return nil
}

var nginxTempPath = regexp.MustCompile(`--http-([a-z-]+)-temp-path=`)

// nginxConfig is a complete configuration that touches nothing outside
// dir. Every temporary path compiled in is set, or nginx would create the
// system's at start. Keep-alive connections are never closed by count,
// as net/http does not close them.
func nginxConfig(dir, addr, version string) string {
	var temps strings.Builder
	for _, m := range nginxTempPath.FindAllStringSubmatch(version, -1) {
		module := strings.ReplaceAll(m[1], "-", "_")
		if strings.Contains(version, "--without-http_"+module+"_module") {
			continue
		}
		fmt.Fprintf(&temps, "\t%s_temp_path %s;\n", module, filepath.Join(dir, "temp", module))
	}
	return fmt.Sprintf(`daemon off;
worker_processes auto;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
%[3]s	types { application/atom+xml atom; }
	default_type application/octet-stream;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	server {
		listen %[2]s;
		root %[1]s/www;
	}
}
`, dir, addr, temps.String())
}

// waitReady waits until nginx answers on its port.
func (n *nginxProc) waitReady() error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-n.done:
			n.done <- err
			log, _ := os.ReadFile(filepath.Join(n.dir, "error.log"))
			return fmt.Errorf("nginx stopped at start: %v\n%s", err, log)
		default:
		}
		if resp, err := http.Get("http://" + n.addr + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nginx did not answer on %s within 10 s", n.addr)
}

// close stops nginx and removes its directory.
func (n *nginxProc) close() {
	if n.cmd != nil {
		n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-n.done:
		case <-time.After(5 * time.Second):
			n.cmd.Process.Kill()
			<-n.done
		}
	}
	os.RemoveAll(n.dir)
}

// freePort is a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
