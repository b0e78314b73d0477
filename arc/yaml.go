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

// parseYAML reads a YAML document into the same generic values JSON
// gives, so that both mean the same: YAML 1.2 scalars (yes and no are
// strings, as in JSON), and timestamps kept as the text written, to be read
// by the same date-time rules as JSON strings.
func parseYAML(data []byte) (*Sitemap, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errorf("the document is empty")
	}
	c := &converter{budget: maxExpansion*len(data) + 1024}
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
		val, err := c.value(v, 1)
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
		v, err := c.value(item, 2)
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

func (c *converter) value(n *yaml.Node, depth int) (any, error) {
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
		return c.value(n.Alias, depth+1)
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := c.value(item, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		return scalar(n), nil
	}
	return nil, nil
}

func (c *converter) mapping(n *yaml.Node, depth int) (any, error) {
	m := make(map[string]any, len(n.Content)/2)
	var merges []any
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		v, err := c.value(n.Content[i+1], depth+1)
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
		m[k.Value] = v
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
