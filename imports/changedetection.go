package imports

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Bounds of reading a changedetection.io backup: only its JSON is read,
// each file up to maxCDFile once inflated, all of them up to maxCDTotal.
const (
	maxCDFile  = 4 << 20
	maxCDTotal = 64 << 20
)

// cdWatch is what tidings reads of a changedetection.io watch.
type cdWatch struct {
	URL          string            `json:"url"`
	Title        string            `json:"title"`
	Tags         []string          `json:"tags"` // ids of tags
	Tag          string            `json:"tag"`  // names, comma-separated, of old releases
	IgnoreText   []string          `json:"ignore_text"`
	Subtractive  []string          `json:"subtractive_selectors"`
	Include      []string          `json:"include_filters"`
	Processor    string            `json:"processor"`
	Paused       bool              `json:"paused"`
	BrowserSteps []json.RawMessage `json:"browser_steps"`
	Method       string            `json:"method"`
}

// cdStore is url-watches.json (releases before 0.50, and the watches of
// the backups they made) or changedetection.json, which from 0.50 on
// holds the settings only, each watch and tag in a file of its own.
type cdStore struct {
	Settings struct {
		Application struct {
			Tags map[string]struct {
				Title string `json:"title"`
			} `json:"tags"`
		} `json:"application"`
	} `json:"settings"`
	Watching map[string]json.RawMessage `json:"watching"`
}

// cdUUID is how changedetection.io names a watch's or a tag's folder.
var cdUUID = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// parseCDZip reads a backup as changedetection.io writes it: its
// settings (changedetection.json, and url-watches.json from releases
// before 0.50), a folder per watch ({uuid}/watch.json beside the watch's
// history, which is not read) and a folder per tag ({uuid}/tag.json).
func parseCDZip(data []byte) (*Plan, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("imports: the .zip file cannot be read: %v", err)
	}
	tags := map[string]string{}
	watches := map[string]json.RawMessage{}
	budget := int64(maxCDTotal)
	read := func(f *zip.File) ([]byte, error) {
		if f.UncompressedSize64 > maxCDFile {
			return nil, fmt.Errorf("imports: %s in the backup is larger than %d MiB", f.Name, maxCDFile>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("imports: %s in the backup cannot be read: %v", f.Name, err)
		}
		defer rc.Close()
		// The sizes a zip declares may lie: the reader is capped too.
		b, err := io.ReadAll(io.LimitReader(rc, min(maxCDFile, budget)+1))
		if err != nil {
			return nil, fmt.Errorf("imports: %s in the backup cannot be read: %v", f.Name, err)
		}
		if int64(len(b)) > min(maxCDFile, budget) {
			return nil, fmt.Errorf("imports: the backup's JSON is larger than tidings reads (%d MiB)", maxCDTotal>>20)
		}
		budget -= int64(len(b))
		return b, nil
	}
	found := false
	for _, f := range zr.File {
		dir, name := path.Split(f.Name)
		dir = strings.TrimSuffix(dir, "/")
		switch {
		case dir == "" && (name == "url-watches.json" || name == "changedetection.json"):
			b, err := read(f)
			if err != nil {
				return nil, err
			}
			var st cdStore
			if err := json.Unmarshal(b, &st); err != nil {
				return nil, fmt.Errorf("imports: %s in the backup is not the JSON changedetection.io writes: %v", name, err)
			}
			found = true
			for id, t := range st.Settings.Application.Tags {
				tags[id] = t.Title
			}
			for id, w := range st.Watching {
				watches[id] = w
			}
		case cdUUID.MatchString(dir) && (name == "watch.json" || name == "tag.json"):
			if len(watches) >= MaxEntries {
				return nil, fmt.Errorf("imports: the backup has more than %d watches", MaxEntries)
			}
			b, err := read(f)
			if err != nil {
				return nil, err
			}
			found = true
			if name == "watch.json" {
				watches[dir] = b
				continue
			}
			var t struct {
				Title string `json:"title"`
			}
			if json.Unmarshal(b, &t) == nil {
				tags[dir] = t.Title
			}
		}
	}
	if !found {
		return nil, errors.New("imports: the .zip file is not a changedetection.io backup: it has no changedetection.json, url-watches.json nor watch.json")
	}
	return cdPlan(watches, tags)
}

// parseCDJSON reads url-watches.json (or changedetection.json) alone.
func parseCDJSON(b []byte) (*Plan, error) {
	var st cdStore
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("imports: the file is not the JSON changedetection.io writes: %v", err)
	}
	if len(st.Watching) > MaxEntries {
		return nil, fmt.Errorf("imports: the file has more than %d watches", MaxEntries)
	}
	tags := map[string]string{}
	for id, t := range st.Settings.Application.Tags {
		tags[id] = t.Title
	}
	return cdPlan(st.Watching, tags)
}

// cdPlan turns watches into sites, in the order of their addresses
// (the JSON's objects have no order).
func cdPlan(watches map[string]json.RawMessage, tags map[string]string) (*Plan, error) {
	p := &Plan{Format: FormatChangeDetection}
	if len(watches) == 0 {
		return nil, errors.New("imports: the changedetection.io backup has no watches")
	}
	type one struct {
		id string
		w  cdWatch
	}
	var all []one
	for id, raw := range watches {
		var w cdWatch
		if err := json.Unmarshal(raw, &w); err != nil {
			p.refuse("watch "+id, "it is not a watch as changedetection.io writes one")
			continue
		}
		all = append(all, one{id, w})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].w.URL != all[j].w.URL {
			return all[i].w.URL < all[j].w.URL
		}
		return all[i].id < all[j].id
	})
	for _, x := range all {
		p.watch(x.id, x.w, tags)
	}
	return p, nil
}

func (p *Plan) watch(id string, w cdWatch, tags map[string]string) {
	from := "watch " + id
	if w.URL == "" {
		p.refuse(from, "it has no url")
		return
	}
	if strings.HasPrefix(w.URL, "source:") {
		w.URL = strings.TrimPrefix(w.URL, "source:")
	}
	site, ok := p.entry(from, w.URL, w.Title)
	if !ok {
		return
	}
	for _, t := range w.Tags {
		if name, ok := tags[t]; ok {
			site.addTag(name)
		} else if !cdUUID.MatchString(t) {
			site.addTag(t)
		}
	}
	for t := range strings.SplitSeq(w.Tag, ",") {
		site.addTag(t)
	}
	for _, t := range w.IgnoreText {
		site.addRule(RuleText, t)
	}
	for _, sel := range w.Subtractive {
		sel = strings.TrimSpace(sel)
		if strings.HasPrefix(sel, "xpath") || strings.HasPrefix(sel, "/") {
			site.Notes = append(site.Notes, fmt.Sprintf("the XPath %s that left part of the page out is not kept: tidings takes CSS selectors", quote(sel)))
			continue
		}
		site.addRule(RuleCSS, sel)
	}
	if len(w.Include) > 0 {
		site.Notes = append(site.Notes, fmt.Sprintf("changedetection.io watched only %s of the page; tidings follows its whole text (leave parts out with rules)", quote(strings.Join(w.Include, ", "))))
	}
	if w.Processor != "" && w.Processor != "text_json_diff" {
		site.Notes = append(site.Notes, fmt.Sprintf("changedetection.io compared it with %s; tidings compares the page's text", quote(w.Processor)))
	}
	if len(w.BrowserSteps) > 0 {
		site.Notes = append(site.Notes, "its browser steps are not kept: tidings reads the page as it is served")
	}
	if w.Method != "" && !strings.EqualFold(w.Method, "GET") {
		site.Notes = append(site.Notes, fmt.Sprintf("changedetection.io sent it a %s; tidings reads the page with GET", clip(w.Method, 10)))
	}
	if w.Paused {
		site.Notes = append(site.Notes, "it was paused in changedetection.io; here it is followed")
	}
}
