package arc

import (
	"fmt"
	"math"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds nesting (ai_snapshot is free-form); maxExpansion bounds
// the values built per byte of input, so aliases cannot multiply a small
// document into a huge one.
const (
	maxDepth     = 64
	maxExpansion = 64
)

// maxYAMLNodes bounds what yaml.v3 is given. It builds the whole
// document as a tree before anything can be skipped, at 200 to 260 bytes
// allocated per node (measured on lists and mappings of 3 MB), so a 31 MB
// list took 6.6 GB; yamlNodes counts generously, without parsing, and a
// document over this many is refused before yaml.v3 sees it. At most
// about 130 MB then, and some 25,000 pages of a usual sitemap.
const maxYAMLNodes = 1 << 20

// parseYAML reads a YAML document into the same generic values JSON
// gives, so that both mean the same: YAML 1.2 scalars (yes and no are
// strings, as in JSON), and timestamps kept as the text written, to be read
// by the same date-time rules as JSON strings.
func parseYAML(data []byte) (*Sitemap, error) {
	if yamlNodes(data) > maxYAMLNodes {
		return nil, errorf("the YAML document may have more than %d nodes (keys, values and list items), more than tidings reads; "+
			"a YAML sitemap may list about 25,000 pages: publish a longer one as JSON", maxYAMLNodes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errorf("the document is empty")
	}
	// Aliases may multiply the tree; without them a document that passed
	// yamlNodes never comes near this.
	c := &converter{budget: min(maxExpansion*len(data)+1024, maxYAMLNodes)}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Line: root.Line, Msg: "the document is not a YAML mapping"}
	}
	b := newBuilder(YAML)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := deref(root.Content[i]), root.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.Value == "pages" {
			if err := b.yamlPages(c, v); err != nil {
				return nil, err
			}
			continue
		}
		p, known := topPlans[k.Value]
		if !known {
			p = walkOnly
		}
		val, err := c.value(v, 1, p)
		if err != nil {
			return nil, err
		}
		if e := b.top(k.Value, val); e != nil {
			e.Line = v.Line
			return nil, e
		}
	}
	return b.finish()
}

func (b *builder) yamlPages(c *converter, n *yaml.Node) error {
	if b.sawPages {
		return &Error{Line: n.Line, Msg: "pages is given twice"}
	}
	b.sawPages = true
	seq := deref(n)
	if seq.Kind != yaml.SequenceNode {
		return &Error{Line: n.Line, Msg: "pages must be a list of pages"}
	}
	for _, item := range seq.Content {
		v, err := c.value(item, 2, pagePlan)
		if err != nil {
			return err
		}
		b.page(v)
	}
	return nil
}

func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		if i := strings.Index(msg, ":"); i >= 0 {
			msg = strings.TrimSpace(msg[i+1:])
		}
	}
	return &Error{Line: line, Msg: "invalid YAML: " + msg}
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxDepth; i++ {
		n = n.Alias
	}
	return n
}

// number is a YAML or JSON number with the text it was written as.
type number struct {
	f   float64
	lit string
}

type converter struct{ budget int }

// value converts n as p says. Whatever is walked rather than built still
// spends the budget and is checked for depth and keys, so that a document
// is refused for the same reasons as when everything was built.
func (c *converter) value(n *yaml.Node, depth int, p *plan) (any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, &Error{Line: n.Line, Msg: "the document's aliases expand to too much data"}
	}
	if depth > maxDepth {
		return nil, &Error{Line: n.Line, Msg: fmt.Sprintf("values are nested more than %d deep", maxDepth)}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		return c.value(n.Alias, depth+1, p)
	case yaml.MappingNode:
		return c.mapping(n, depth, p)
	case yaml.SequenceNode:
		return c.sequence(n, depth, p)
	case yaml.ScalarNode:
		if p.walks() {
			return nil, nil
		}
		return scalar(n), nil
	}
	return nil, nil
}

func (c *converter) sequence(n *yaml.Node, depth int, p *plan) (any, error) {
	build, ip := true, (*plan)(nil)
	if p != nil {
		build, ip = p.items != nil, p.items
		if !build {
			ip = walkOnly
		}
	}
	var list []any
	if build {
		list = make([]any, 0, len(n.Content))
	}
	for _, item := range n.Content {
		v, err := c.value(item, depth+1, ip)
		if err != nil {
			return nil, err
		}
		if build {
			list = append(list, v)
		}
	}
	switch {
	case build:
		return list, nil
	case p.walk:
		return nil, nil
	}
	return listValue, nil
}

func (c *converter) mapping(n *yaml.Node, depth int, p *plan) (any, error) {
	var m map[string]any
	switch {
	case p == nil:
		m = make(map[string]any, len(n.Content)/2)
	case !p.walk:
		// Sized by what is kept: a page may have a million keys.
		m = make(map[string]any, len(p.fields))
	}
	var merges []any
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		vp := p.field(k)
		v, err := c.value(n.Content[i+1], depth+1, vp)
		if err != nil {
			return nil, err
		}
		if k.Kind != yaml.ScalarNode {
			return nil, &Error{Line: k.Line, Msg: "a mapping key is not a plain value"}
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if m != nil && vp != walkOnly {
			m[k.Value] = v
		}
	}
	if m == nil {
		return nil, nil
	}
	// "<<: *defaults" fills in keys not given, as YAML 1.1 merge keys do.
	for _, mv := range merges {
		list, ok := mv.([]any)
		if !ok {
			list = []any{mv}
		}
		for _, item := range list {
			src, _ := item.(map[string]any)
			for k, v := range src {
				if _, set := m[k]; !set {
					m[k] = v
				}
			}
		}
	}
	return m, nil
}

// plan says which parts of a value are built. A nil plan builds all of
// it; otherwise a mapping builds the fields listed, each by its own plan,
// a sequence builds its items by items (or none, when items is nil), and
// walk builds nothing.
type plan struct {
	fields map[string]*plan
	items  *plan
	walk   bool
}

var (
	walkOnly = &plan{walk: true}
	topPlans = map[string]*plan{
		"arc_sitemap_version": nil, "site": nil, "generated_at": nil, "crawl_rate": nil,
		"metadata": {fields: map[string]*plan{"crawl_rate": nil}},
	}
	pagePlan = &plan{fields: map[string]*plan{
		"url": nil, "ai_indexable": nil, "lastmod": nil, "ai_summary": nil, "ai_checksum": nil,
		"robots_directive": nil, "auth_required": nil, "crawl_priority": nil, "ai_tags": nil,
		"ai_snapshot": {fields: map[string]*plan{"title": nil}},
	}}
)

func (p *plan) walks() bool { return p != nil && p.walk }

// field is the plan for the value of key k in a mapping planned by p. A
// merge key's value is merged into this mapping, so it is planned as the
// mapping is, or as a list of such mappings.
func (p *plan) field(k *yaml.Node) *plan {
	switch {
	case p == nil || p.walk:
		return p
	case k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge":
		return &plan{fields: p.fields, items: p}
	}
	if sub, ok := p.fields[k.Value]; ok && k.Kind == yaml.ScalarNode {
		return sub
	}
	return walkOnly
}

func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int", "!!float":
		var v any
		if n.Decode(&v) == nil {
			switch x := v.(type) {
			case int:
				return number{float64(x), n.Value}
			case int64:
				return number{float64(x), n.Value}
			case uint64:
				return number{float64(x), n.Value}
			case float64:
				return number{x, n.Value}
			}
		}
		return number{math.NaN(), n.Value}
	}
	// Strings, timestamps (as written), binary and custom tags.
	return n.Value
}
