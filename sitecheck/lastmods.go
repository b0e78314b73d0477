package sitecheck

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"tidings/db"
)

// History is what tidings has stored of the sites it follows: of a
// sitemap's pages, the lastmods it last listed and the pages as last
// read. A check is one visit; whether a lastmod follows its page's text
// needs a reading from before, and a followed site has one.
type History interface {
	SitemapReadings(ctx context.Context, root string) (map[string]db.PageReading, bool, error)
}

// WithHistory returns a Checker that compares what it reads with what h
// stored of the site, when the site is followed.
func (ck *Checker) WithHistory(h History) *Checker {
	c := *ck
	c.history = h
	return &c
}

// Codes of the findings on lastmods that do not follow their pages.
const (
	CheckLastmodStale = "lastmod-stale" // the text changed, the lastmod did not
	CheckLastmodMoved = "lastmod-moved" // the lastmod moved, the text did not
)

// lastmodSample is how many pages a lastmod finding names.
const lastmodSample = 3

// lastmodFix is what a site that lies in its lastmods should do.
const lastmodFix = "Generate each lastmod from the page's content, so that it moves when the text does and only then " +
	"(tidings publish writes such a sitemap, and a ResourceSync change list with it)."

// lastmodNeedsHistory is said of a plain sitemap's site that is not
// followed here.
const lastmodNeedsHistory = "Whether the sitemap's lastmods follow the pages' texts takes two readings some time apart, and this check is one: " +
	"once a tidings has followed the site for a while, its check compares what it reads with what it stored."

// judgeLastmods compares the pages the check read (now, from its
// throwaway store) with what the history stored of the same pages, and
// names the pages whose text changed under an unchanged lastmod and those
// whose lastmod moved over an unchanged text.
func (ck *Checker) judgeLastmods(ctx context.Context, rep *Report, root string, now *db.DB, private bool) error {
	if !slices.ContainsFunc(rep.Collections, func(c Collection) bool { return c.Protocol == "sitemap" && c.Error == "" }) {
		return nil
	}
	var before map[string]db.PageReading
	found := false
	if ck.history != nil && !private {
		var err error
		if before, found, err = ck.history.SitemapReadings(ctx, root); err != nil {
			return err
		}
	}
	if !found {
		rep.Warnings = append(rep.Warnings, lastmodNeedsHistory)
		return nil
	}
	read, _, err := now.SitemapReadings(ctx, root)
	if err != nil {
		return err
	}
	var stale, moved []string
	for u, r := range read {
		b, ok := before[u]
		if !ok || len(r.Hash) == 0 || len(b.Hash) == 0 || r.Lastmod == nil || b.Lastmod == nil {
			continue
		}
		sameText, sameLastmod := bytes.Equal(r.Hash, b.Hash), r.Lastmod.Equal(*b.Lastmod)
		switch {
		case !sameText && sameLastmod:
			stale = append(stale, u)
		case sameText && !sameLastmod:
			moved = append(moved, u)
		}
	}
	if len(stale) > 0 {
		rep.Problems = append(rep.Problems, lastmodProblem(CheckLastmodStale, rep, stale,
			"changed their text since tidings last read them, while their lastmod stayed the same", "changed its text since tidings last read it, while its lastmod stayed the same"))
	}
	if len(moved) > 0 {
		rep.Problems = append(rep.Problems, lastmodProblem(CheckLastmodMoved, rep, moved,
			"have a lastmod other than when tidings last read them, while their text is the same", "has a lastmod other than when tidings last read it, while its text is the same"))
	}
	return nil
}

func lastmodProblem(code string, rep *Report, urls []string, many, one string) Problem {
	slices.Sort(urls)
	doc := ""
	for _, c := range rep.Collections {
		if c.Protocol == "sitemap" {
			doc = c.Source
			break
		}
	}
	sample := urls[:min(len(urls), lastmodSample)]
	text := fmt.Sprintf("%d pages %s: %s", len(urls), many, strings.Join(sample, ", "))
	if len(urls) == 1 {
		text = fmt.Sprintf("1 page %s: %s", one, urls[0])
	}
	if more := len(urls) - len(sample); more > 0 {
		text += fmt.Sprintf(" and %d more", more)
	}
	return Problem{Code: code, Doc: doc, Problem: text + ".", Fix: lastmodFix}
}
