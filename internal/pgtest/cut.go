package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// CutProxy relays TCP connections on loopback to a database server until
// Cut: then every connection is reset and new ones are refused, as when
// the server goes down, until Restore. It stands for a server stopped
// and started again, without stopping the one other tests share.
type CutProxy struct {
	t    testing.TB
	addr string
	to   string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
}

// Through returns dsn reached through a new CutProxy, with a connect
// timeout of 5 s, and the proxy. The proxy is cut when t ends.
func Through(t testing.TB, dsn string) (string, *CutProxy) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &CutProxy{t: t, addr: "127.0.0.1:0", to: u.Host}
	p.Restore()
	p.addr = p.ln.Addr().String()
	t.Cleanup(p.Cut)
	u.Host = p.addr
	q := u.Query()
	q.Set("connect_timeout", "5")
	u.RawQuery = q.Encode()
	return u.String(), p
}

// Restore listens again, on the same address.
func (p *CutProxy) Restore() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go p.accept(ln)
}

func (p *CutProxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.to)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.ln != ln {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go relay(up, c)
		go relay(c, up)
	}
}

// relay copies from one side to the other, and closes both at the end.
func relay(dst, src net.Conn) {
	io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// Cut closes the listener and resets every connection.
func (p *CutProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		// A reset, not a polite close: the server is gone, not leaving.
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
	}
	p.conns = nil
}
