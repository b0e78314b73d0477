package web

import "net/netip"

// clientKey is who a request comes from, for limits per client: its
// address, or for IPv6 its /64, since one subscriber commonly holds a
// whole /64 and can send from any of its 2^64 addresses.
func clientKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String()
	}
	return p.String()
}
