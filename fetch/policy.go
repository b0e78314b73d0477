package fetch

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// target parses rawURL for a request: an absolute http or https URL, its
// host rewritten to the address it means, and not a name reserved for
// loopback.
func (c *Client) target(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &FetchError{URL: rawURL, Reason: "is not an http or https URL", Err: err}
	}
	canonicalizeHost(u)
	if err := c.checkName(u.Hostname()); err != nil {
		return nil, &FetchError{URL: rawURL, Reason: err.Error(), Err: err}
	}
	return u, nil
}

// checkName refuses "localhost" and the names under ".localhost" before
// any DNS query: RFC 6761 reserves them for loopback, and a resolver that
// sends them upstream may answer anything.
func (c *Client) checkName(host string) error {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "invalid" || strings.HasSuffix(h, ".invalid") {
		// RFC 6761 §6.4: such names never exist, so no query is sent.
		return &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if c.opts.AllowPrivate {
		return nil
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return &AddressError{Address: host, Kind: "a name reserved for loopback (RFC 6761)"}
	}
	return nil
}

// RestrictedKind says what kind of non-public address ip is ("a loopback
// address", …), or "" for an address tidings may connect to. IPv6 forms
// that carry an IPv4 address to a translator or tunnel are judged whole
// (NAT64, Teredo, IPv4-compatible) or by the address they carry (6to4).
func RestrictedKind(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "a loopback address"
	case ip.IsPrivate():
		return "a private address"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "a link-local address"
	case ip.IsUnspecified():
		return "an unspecified address"
	case ip.IsMulticast():
		return "a multicast address"
	}
	for _, r := range reserved {
		if r.prefix.Contains(ip) {
			return r.kind
		}
	}
	if sixToFour.Contains(ip) {
		b := ip.As16()
		if kind := RestrictedKind(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); kind != "" {
			return "a 6to4 address carrying " + kind
		}
	}
	return ""
}

// sixToFour is 2002::/16, whose next 32 bits are an IPv4 address (RFC 3056).
var sixToFour = netip.MustParsePrefix("2002::/16")

// reserved lists the special-purpose ranges (IANA's registries) that reach
// no public host, or reach one only through a translator that tidings
// cannot see past.
var reserved = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address"},
	{netip.MustParsePrefix("0.0.0.0/8"), `a "this network" address`},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	// RFC 5737 and RFC 3849/9637 keep these for examples: no public host
	// answers there, and a network that routes them is one's own.
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a NAT64 address"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address"},
}

// NewClientAllowing builds a client as NewClient does whose address
// policy also lets through connections to the addresses listed (an IP
// and port, as dialled), whatever they are. A test stands a loopback
// server in for a public host with it, to see what the policy does on
// the way from there to another address.
func NewClientAllowing(o ClientOptions, addresses ...string) *Client {
	c := NewClient(o)
	c.allowAddr = func(a string) bool { return slices.Contains(addresses, a) }
	return c
}
