package web

import (
	"net/http"
	"net/url"
	"testing"
)

// TestSignInLimitCountsIPv6By64: sign-in and sign-up count an IPv6
// client by its /64, as the check page does: addresses of one /64 share
// one allowance, and the next /64 has its own.
func TestSignInLimitCountsIPv6By64(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{AuthRate: 3})
	newAccount(t, a.store, "ann")
	wrong := url.Values{"name": {"ann"}, "password": {"wrong password"}}
	from := func(ip string) *uiClient {
		c := a.client(t, "")
		c.addr = "[" + ip + "]:40000"
		return c
	}
	for i, ip := range []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:abcd::3"} {
		if rec := from(ip).post("/signin", wrong); rec.Code != http.StatusUnauthorized {
			t.Fatalf("attempt %d from %s: %d, want 401", i+1, ip, rec.Code)
		}
	}
	if rec := from("2001:db8:1:2:ffff:ffff:ffff:ffff").post("/signup", url.Values{"name": {"bob"}, "password": {goodPassword}}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a sign-up from a fourth address of the same /64: %d, want 429", rec.Code)
	}
	if rec := from("2001:db8:1:3::1").post("/signin", wrong); rec.Code != http.StatusUnauthorized {
		t.Errorf("from the next /64: %d, want 401", rec.Code)
	}
}
