// Package urls holds the rules of an address in one place: what a person
// types normalised to a site's root and the page given, the part of a
// site an address stands for, the key by which a host is paced, and
// whether a page is a site's own. Follow, the harvest, its sources and
// the worker all ask here, so that one address means one site to each.
// Strings in, strings out, no I/O.
package urls

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Normalize accepts what a person types: an address with or without its
// scheme (https is assumed). It returns the site's root
// ("https://example.org/") and the full address given, lower-cased host,
// no fragment, or an error that says, as a sentence, why it is no
// address tidings can follow.
func Normalize(raw string) (root, input string, err error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", "", errors.New("no address was given")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("%q is not a URL", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", "", fmt.Errorf("%q is not an http or https address", raw)
	}
	if u.Hostname() == "" {
		return "", "", fmt.Errorf("%q has no host name", raw)
	}
	if u.User != nil {
		// "mailto:ann@example.org" and "https://user:pw@host/" are not sites
		// to fetch, and credentials must not travel to a host.
		return "", "", fmt.Errorf("%q contains a user name; give the site's address without it", raw)
	}
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	if u.Path == "" {
		u.Path = "/"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
	return r.String(), u.String(), nil
}

// HostKey is the key by which requests to a site are paced and never
// run two at once: its host and port, as each port may be another
// server. An address that does not parse is its own key.
func HostKey(siteURL string) string {
	u, err := url.Parse(siteURL)
	if err != nil {
		return siteURL
	}
	return u.Host
}

// Scope is the part of a site an address stands for: its directory
// ("https://user.github.io/project/" for ".../project", ".../project/"
// or ".../project/sitemap.xml"), or the root.
func Scope(input string) string {
	u, err := url.Parse(input)
	if err != nil || u.Host == "" {
		return input
	}
	p := u.Path
	switch {
	case p == "" || p == "/":
		p = "/"
	case strings.HasSuffix(p, "/"):
	case strings.Contains(path.Base(p), "."):
		// A file (index.html, sitemap.xml): its directory.
		p = path.Dir(p)
		if p != "/" {
			p += "/"
		}
	default:
		p += "/"
	}
	s := url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}
	return s.String()
}

// OnSite reports whether page is on the host of one of others (www. or
// not): a document speaks only for the pages of its own host or its
// site's, so that no site can put entries about someone else's pages
// into its feed.
func OnSite(page string, others ...string) bool {
	pu, err := url.Parse(page)
	if err != nil {
		return false
	}
	host := BareHost(pu.Hostname())
	for _, other := range others {
		if ou, err := url.Parse(other); err == nil && BareHost(ou.Hostname()) == host {
			return true
		}
	}
	return false
}

// BareHost is a host as a site's own pages may name it, www. or not:
// two hosts of one site have the same.
func BareHost(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }

// InScope reports whether the page URL lies under scope: the same host (a
// leading "www." aside, either scheme) and a path starting with the
// scope's path. A scope "https://host/shrine/" holds "/shrine/" and
// "/shrine/a.html", and "/shrine" itself.
func InScope(page, scope string) bool {
	pu, err1 := url.Parse(page)
	su, err2 := url.Parse(scope)
	if err1 != nil || err2 != nil || BareHost(pu.Host) != BareHost(su.Host) {
		return false
	}
	return UnderPath(pu.EscapedPath(), su.EscapedPath())
}

// UnderPath reports whether the escaped path p lies under the scope's
// escaped path prefix, the directory itself written without its slash
// included. A parser that checks many pages against one scope parses the
// scope once and asks this.
func UnderPath(p, prefix string) bool {
	if prefix == "" || prefix == "/" {
		return true
	}
	return strings.HasPrefix(p, prefix) || p == strings.TrimSuffix(prefix, "/")
}

// IsHostOf reports whether host (as a resolver names it, perhaps with a
// trailing dot) is the host of the site whose root is root: a sitemap
// naming a host that does not exist says nothing of another site.
func IsHostOf(host, root string) bool {
	u, err := url.Parse(root)
	return err == nil && strings.EqualFold(strings.TrimSuffix(host, "."), u.Hostname())
}

// SameDomain reports whether a and b are under one registered domain
// (iiif.museum.org and www.museum.org), by the public suffix list; an IP
// address is its own domain.
func SameDomain(a, b string) bool {
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
		return host, true
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return "", false
	}
	return d, true
}
