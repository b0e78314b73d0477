package arc

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
)

// Bounds on reading a page for JSON-LD.
const (
	MaxPageBytes    = 2 << 20
	maxScriptBytes  = 512 << 10
	MaxDatasetLinks = 5
)

// DatasetLinks reads the <script type="application/ld+json"> blocks of an
// HTML page and returns the URLs that a schema.org Dataset gives for an
// ARC sitemap, resolved against base: the Dataset's url, and the
// contentUrl (or url) of each of its distributions. A URL counts when it
// ends in .json, .yaml or .yml, when its distribution's encodingFormat is
// JSON or YAML, or when the Dataset's name mentions ARC. At most
// MaxDatasetLinks are returned, without duplicates.
func DatasetLinks(r io.Reader, base string) []string {
	data, _ := io.ReadAll(io.LimitReader(r, MaxPageBytes))
	baseURL, err := url.Parse(base)
	if err != nil {
		return nil
	}
	c := &collector{base: baseURL, seen: map[string]bool{}}
	z := html.NewTokenizer(bytes.NewReader(data))
	inLD := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return c.out
		case html.StartTagToken:
			name, hasAttr := z.TagName()
			inLD = string(name) == "script" && hasAttr && isLDScript(z)
			if string(name) == "base" && hasAttr {
				c.setBase(z)
			}
		case html.TextToken:
			if inLD {
				c.script(z.Text())
			}
		case html.EndTagToken:
			inLD = false
		}
		if len(c.out) >= MaxDatasetLinks {
			return c.out[:MaxDatasetLinks]
		}
	}
}

func isLDScript(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "type" {
			t := strings.ToLower(strings.TrimSpace(strings.SplitN(string(v), ";", 2)[0]))
			return t == "application/ld+json"
		}
		if !more {
			return false
		}
	}
}

type collector struct {
	base    *url.URL
	baseSet bool
	seen    map[string]bool
	out     []string
}

func (c *collector) setBase(z *html.Tokenizer) {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "href" && !c.baseSet {
			if u, err := c.base.Parse(strings.TrimSpace(string(v))); err == nil {
				c.base, c.baseSet = u, true
			}
		}
		if !more {
			return
		}
	}
}

func (c *collector) script(text []byte) {
	if len(text) > maxScriptBytes {
		return
	}
	var v any
	if json.Unmarshal(text, &v) != nil {
		return
	}
	c.walk(v, 0)
}

// walk finds Dataset objects at the top, in lists and in @graph.
func (c *collector) walk(v any, depth int) {
	if depth > 4 {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			c.walk(item, depth+1)
		}
	case map[string]any:
		if g, ok := x["@graph"]; ok {
			c.walk(g, depth+1)
		}
		if hasType(x["@type"], "Dataset") {
			c.dataset(x)
		}
	}
}

func (c *collector) dataset(d map[string]any) {
	name, _ := d["name"].(string)
	byName := strings.Contains(strings.ToLower(name), "arc")
	var dists []map[string]any
	switch x := d["distribution"].(type) {
	case map[string]any:
		dists = append(dists, x)
	case []any:
		for _, item := range x {
			if m, ok := item.(map[string]any); ok {
				dists = append(dists, m)
			}
		}
	}
	// The specification's example names the format in a distribution
	// without a URL of its own, and the sitemap in the Dataset's url; a
	// distribution that has its own URL makes the Dataset's url a landing
	// page.
	formatOnly := false
	for _, dist := range dists {
		f, _ := dist["encodingFormat"].(string)
		ok := dataFormat(f)
		own := false
		for _, key := range []string{"contentUrl", "url"} {
			if s, isStr := dist[key].(string); isStr {
				own = true
				c.add(s, ok || byName)
			}
		}
		formatOnly = formatOnly || (ok && !own)
	}
	if s, ok := d["url"].(string); ok {
		c.add(s, formatOnly || byName)
	}
}

func (c *collector) add(raw string, hinted bool) {
	u, err := c.base.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	u.Fragment = ""
	ext := strings.ToLower(path.Ext(strings.TrimSuffix(strings.ToLower(u.Path), ".gz")))
	if !hinted && ext != ".json" && ext != ".yaml" && ext != ".yml" {
		return
	}
	s := u.String()
	if !c.seen[s] {
		c.seen[s] = true
		c.out = append(c.out, s)
	}
}

func dataFormat(f string) bool {
	f = strings.ToLower(f)
	return strings.Contains(f, "json") || strings.Contains(f, "yaml")
}

// hasType matches "Dataset", "schema:Dataset", "https://schema.org/Dataset"
// and lists holding one of them.
func hasType(v any, want string) bool {
	switch x := v.(type) {
	case string:
		return x == want || strings.HasSuffix(x, ":"+want) || strings.HasSuffix(x, "/"+want)
	case []any:
		for _, item := range x {
			if hasType(item, want) {
				return true
			}
		}
	}
	return false
}
