package iiif

import (
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// sameDomain reports whether a and b are under one registered domain
// (iiif.museum.org and www.museum.org), by the public suffix list.
func sameDomain(a, b string) bool {
	da, ok := domainOf(a)
	if !ok {
		return false
	}
	db, ok := domainOf(b)
	return ok && da == db
}

func domainOf(u string) (string, bool) {
	pu, err := url.Parse(u)
	if err != nil || pu.Hostname() == "" {
		return "", false
	}
	host := strings.ToLower(pu.Hostname())
	if strings.Trim(host, "0123456789.") == "" || strings.Contains(host, ":") {
		// An IP address is its own domain.
		return host, true
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return "", false
	}
	return d, true
}
