package harvest

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"syscall"

	"tidings/fetch"
	"tidings/urls"
)

// noSuchHost reports whether err says the DNS knows no such host, and
// which.
func noSuchHost(err error) (string, bool) {
	var de *net.DNSError
	if errors.As(err, &de) && de.IsNotFound {
		return de.Name, true
	}
	return "", false
}

// sameHost: host is the site's (whose root is root); a sitemap naming
// a host that does not exist says nothing of the site.
func sameHost(host, root string) bool { return urls.IsHostOf(host, root) }

// whyNothing is the one sentence that says first why discovery found
// nothing to follow, judged from the fetches that went wrong; the list
// of attempts follows it.
func (d *SiteDiscovery) whyNothing() string {
	const none = "no change information (ResourceSync, SCP or ARC) was found, and no sitemap listing this site's pages"
	if to, ok := d.oneDestination(); ok {
		return "every address on the site leads to " + to + " (a login page, or a redirect to one place): tidings cannot read the site's pages"
	}
	if len(d.errs) == 0 {
		return none
	}
	var refused, robots, notFound, statuses int
	for _, err := range d.errs {
		var fe *fetch.FetchError
		isFE := errors.As(err, &fe)
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			refused++
		case isFE && strings.Contains(fe.Reason, "robots.txt"):
			robots++
		case isFE && fe.Status == http.StatusNotFound:
			notFound++
		}
		if isFE && fe.Status != 0 {
			statuses++
		}
	}
	n := len(d.errs)
	switch {
	case refused == n:
		return "the site refused the connection: nothing answers at this address"
	case robots > 0 && robots+notFound == n:
		return "robots.txt forbids tidings to read this site"
	case notFound == n && fetch.Gone(d.cache[d.input].err):
		return "every page answered 404 Not Found: check the address"
	}
	return none
}

// oneDestination reports whether every document discovery read, two at
// least, was redirected to one same address.
func (d *SiteDiscovery) oneDestination() (string, bool) {
	to, n := "", 0
	for asked, c := range d.cache {
		if c.resp == nil {
			continue
		}
		if c.resp.URL == asked || to != "" && c.resp.URL != to {
			return "", false
		}
		to = c.resp.URL
		n++
	}
	return to, n >= 2
}

// once keeps the first of each sentence: protocols that look at the same
// address each say what they found there.
func once(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
