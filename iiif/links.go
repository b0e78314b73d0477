package iiif

import (
	"bytes"
	"io"
	"mime"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"tidings/hints"
)

// MaxLinks is the most stream links StreamLinks returns from one page.
const MaxLinks = 10

// StreamLinks reads the <head> of an HTML page and returns the href of
// every <link rel="alternate"> whose type is JSON-LD with the discovery
// profile (the spec's section 4.1) or the Activity Streams one, or
// Activity Streams' own media type: the page's change stream. The links
// are resolved against base (or a <base href>), absolute http(s) only,
// without duplicates, at most MaxLinks. Reading stops at </head> or
// <body>, and after hints.MaxHTMLBytes.
func StreamLinks(r io.Reader, base string) []string {
	data, err := io.ReadAll(io.LimitReader(r, hints.MaxHTMLBytes))
	if err != nil && len(data) == 0 {
		return nil
	}
	baseURL, _ := url.Parse(base)
	z := html.NewTokenizer(bytes.NewReader(data))
	var out []string
	seenBase := false
	for len(out) < MaxLinks {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return out
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			switch string(name) {
			case "body":
				return out
			case "base":
				if href := hints.Attrs(z, more)["href"]; href != "" && !seenBase && baseURL != nil {
					seenBase = true
					if u, err := baseURL.Parse(strings.TrimSpace(href)); err == nil {
						baseURL = u
					}
				}
			case "link":
				a := hints.Attrs(z, more)
				if !hints.HasToken(a["rel"], "alternate") || !StreamType(a["type"]) || baseURL == nil {
					continue
				}
				u, err := baseURL.Parse(strings.TrimSpace(a["href"]))
				if err != nil {
					continue
				}
				if s := httpURL(u.String()); s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// StreamType reports whether a media type names a change stream:
// application/ld+json with the discovery or the Activity Streams profile,
// or application/activity+json.
func StreamType(t string) bool {
	mt, params, err := mime.ParseMediaType(t)
	if err != nil {
		return false
	}
	switch mt {
	case "application/activity+json":
		return true
	case "application/ld+json":
		for _, p := range strings.Fields(params["profile"]) {
			p = strings.TrimSuffix(strings.Replace(p, "https://", "http://", 1), "/")
			if p == DiscoveryContext || p == strings.Replace(ActivityStreamsProfile, "https://", "http://", 1) {
				return true
			}
		}
	}
	return false
}
