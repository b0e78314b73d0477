package fetch

import (
	"context"
	"errors"
	"net"
	"testing"
)

// TestInvalidNamesAreNeverLookedUp: a name under .invalid (RFC 6761)
// fails as a name that does not exist, with no DNS query and no
// connection attempted, whatever the address policy.
func TestInvalidNamesAreNeverLookedUp(t *testing.T) {
	for _, allow := range []bool{false, true} {
		dials := 0
		c := NewClient(ClientOptions{AllowPrivate: allow, DialHook: func(string, string) { dials++ }})
		_, err := c.Get(context.Background(), "https://shrine.example.INVALID./moths/", Conditional{})
		var de *net.DNSError
		if !errors.As(err, &de) || !de.IsNotFound || dials != 0 {
			t.Errorf("allow private %v: %v after %d connection attempts; want a DNS not-found error and none", allow, err, dials)
		}
	}
}
