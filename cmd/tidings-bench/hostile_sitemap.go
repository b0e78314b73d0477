package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// The attack of issue 25 ("Hardening, round three"), item 8: a plain
// sitemap whose last <loc> is 45 MB, named by a robots.txt that is one
// line of 36 MB. Before it was bounded, one such site took follow to
// 337 MB; serve harvests four sites at once, so four of them are
// harvested together.
const (
	robotsLineBytes = 36_000_000
	hostileAtOnce   = 4
)

// longLocSite is the documents of one such site: the robots.txt line is a
// Sitemap line whose comment runs on for 36 MB, so that a reader that
// keeps the line whole still finds the sitemap.
func longLocSite(at time.Time) func(base string) map[string]hostileDoc {
	return func(base string) map[string]hostileDoc {
		sm := sitemapDoc{base: base, entries: 3, longLoc: longLocBytes, at: at}
		docs := map[string]hostileDoc{
			"/robots.txt": {"text/plain", func(w io.Writer) error {
				head := fmt.Sprintf("Sitemap: %s/sitemap.xml # ", base)
				if _, err := io.WriteString(w, head); err != nil {
					return err
				}
				return writePad(w, robotsLineBytes-int64(len(head)))
			}},
			"/sitemap.xml": {"application/xml", sm.write},
		}
		for i := range sm.entries {
			page := fmt.Sprintf("<!doctype html><title>Page %d</title><p>The text of page %d.</p>", i, i)
			docs[sm.page(i)] = hostileDoc{"text/html", func(w io.Writer) error {
				_, err := io.WriteString(w, page)
				return err
			}}
		}
		return docs
	}
}

// sitemapDoc is a plain sitemap (sitemaps.org 0.9) of entries pages, then,
// when longLoc > 0, one more whose URL is longLoc bytes.
type sitemapDoc struct {
	base    string
	entries int
	longLoc int64
	at      time.Time
}

// page is the path of the i-th page the sitemap lists.
func (d sitemapDoc) page(i int) string { return fmt.Sprintf("/pages/%d.html", i) }

func (d sitemapDoc) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	lastmod := d.at.Format(time.RFC3339)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range d.entries {
		fmt.Fprintf(bw, "  <url>\n    <loc>%s%s</loc>\n    <lastmod>%s</lastmod>\n  </url>\n", d.base, d.page(i), lastmod)
	}
	if d.longLoc > 0 {
		u := d.base + "/pages/long-"
		if _, err := io.WriteString(bw, "  <url>\n    <loc>"+u); err != nil {
			return err
		}
		if err := writePad(bw, d.longLoc-int64(len(u))); err != nil {
			return err
		}
		fmt.Fprintf(bw, "</loc>\n    <lastmod>%s</lastmod>\n  </url>\n", lastmod)
	}
	bw.WriteString("</urlset>\n")
	return bw.Flush()
}

// hostileLongLoc follows one site of the attack, then hostileAtOnce of
// them at once, and lets serve's scheduler harvest those again at once,
// both with hostileArgs.
func (h *harness) hostileLongLoc(ctx context.Context, at time.Time) ([]Row, error) {
	sites, err := startHostileSites(hostileAtOnce, longLocSite(at))
	if err != nil {
		return nil, err
	}
	defer closeSites(sites)
	row, err := h.longLocAlone(ctx, sites[0])
	if err != nil {
		return nil, err
	}
	rows := []Row{row}
	scenario := fmt.Sprintf("7. hostile: %d sites, each a 45 MB sitemap `<loc>` and a 36 MB robots.txt line", len(sites))
	dbPath := filepath.Join(h.dir, "hostile-longloc.db")
	env := h.env(dbPath)
	res, followed, err := h.followAtOnce(ctx, env, sites, hostileArgs)
	if err != nil {
		return nil, err
	}
	sent := sentBy(sites)
	rows = append(rows, followRow(scenario, res, fmt.Sprintf("%d of %d followed, %d at once, %s sent", followed, len(sites), hostileWorkers, size(sent))))
	row, err = h.serveHarvest(ctx, scenario, env, dbPath, "", hostileArgs)
	if err != nil {
		return nil, err
	}
	row.Figure += fmt.Sprintf("; %s sent", size(sentBy(sites)-sent))
	return append(rows, row), nil
}

// longLocRuns is how many times one site is followed alone: its peak
// depends on when the collector runs between the parsers that read the
// sitemap in turn, and varied from 240 to 377 MB between runs.
const longLocRuns = 3

// longLocAlone follows site alone, longLocRuns times, each into a new
// database.
func (h *harness) longLocAlone(ctx context.Context, site *hostileSite) (Row, error) {
	var peaks []string
	var worst runResult
	for i := range longLocRuns {
		env := h.env(filepath.Join(h.dir, fmt.Sprintf("hostile-longloc-alone-%d.db", i)))
		res, err := runMeasured(ctx, command(h.bin, env, "follow", site.base+"/"), hostileTimeout, rssGuard)
		if err != nil {
			return Row{}, err
		}
		peaks = append(peaks, mb(res.peak))
		if i == 0 || worst.ok() && (!res.ok() || res.peak > worst.peak) {
			worst = res
		}
	}
	sent := site.sent() / longLocRuns
	site.reset()
	row := followRow("7. hostile: a 45 MB sitemap `<loc>` and a 36 MB robots.txt line", worst, fmt.Sprintf("%s sent a run", size(sent)))
	row.Figure = fmt.Sprintf("follow, %d runs: peak RSS %s; the highest (or one that failed): ", longLocRuns, strings.Join(peaks, ", ")) + strings.TrimPrefix(row.Figure, "follow: ")
	return row, nil
}

// startHostileSites starts n sites, each on a port of its own.
func startHostileSites(n int, docs func(base string) map[string]hostileDoc) ([]*hostileSite, error) {
	var sites []*hostileSite
	for range n {
		s, err := startHostileSite(docs)
		if err != nil {
			closeSites(sites)
			return nil, err
		}
		sites = append(sites, s)
	}
	return sites, nil
}

func closeSites(sites []*hostileSite) {
	for _, s := range sites {
		s.close()
	}
}

// sentBy is the bytes of documents the sites have sent, together.
func sentBy(sites []*hostileSite) int64 {
	var n int64
	for _, s := range sites {
		n += s.sent()
	}
	return n
}
