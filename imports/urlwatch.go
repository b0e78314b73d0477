package imports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// urlwatchJob is one YAML document of urls.yaml: a job.
type urlwatchJob struct {
	Name       string    `yaml:"name"`
	URL        string    `yaml:"url"`
	Navigate   string    `yaml:"navigate"`
	Command    string    `yaml:"command"`
	Filter     yaml.Node `yaml:"filter"`
	Method     string    `yaml:"method"`
	Data       yaml.Node `yaml:"data"`
	UseBrowser bool      `yaml:"use_browser"`
}

// parseURLWatch reads urlwatch's urls.yaml: one job a YAML document.
// A job's url (or navigate, for the browser jobs of older releases) is
// followed with its name; a command job runs a program, which tidings
// never does, and is refused. Of the filters, grepi (lines to leave
// out) becomes a text rule; the others pick what to watch, and tidings
// reads the page's whole text, so they are noted as not kept.
func parseURLWatch(text []byte) (*Plan, error) {
	p := &Plan{Format: FormatURLWatch}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for n := 1; ; n++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("imports: job %d of the urlwatch file is not YAML urlwatch reads: %s", n, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if n > MaxEntries {
			return nil, fmt.Errorf("imports: the urlwatch file has more than %d jobs", MaxEntries)
		}
		if len(node.Content) == 0 || node.Content[0].Kind == yaml.ScalarNode && node.Content[0].Tag == "!!null" {
			continue // an empty document, as a trailing --- makes
		}
		var job urlwatchJob
		from := fmt.Sprintf("job %d", n)
		if err := node.Decode(&job); err != nil {
			p.refuse(from, "it is not a job urlwatch reads (a mapping of url, name, filter…)")
			continue
		}
		if job.Name != "" {
			from += " (" + clip(job.Name, 80) + ")"
		}
		p.job(from, job)
	}
	if len(p.Sites) == 0 && len(p.Refused) == 0 {
		return nil, errors.New("imports: the urlwatch file has no jobs")
	}
	return p, nil
}

func (p *Plan) job(from string, job urlwatchJob) {
	addr := job.URL
	if addr == "" {
		addr = job.Navigate
	}
	switch {
	case job.Command != "" && addr == "":
		p.refuse(from, fmt.Sprintf("it runs the command %s: tidings follows web addresses, and runs no programs", quote(job.Command)))
		return
	case addr == "":
		p.refuse(from, "it has no url")
		return
	}
	site, ok := p.entry(from, addr, job.Name)
	if !ok {
		return
	}
	if job.UseBrowser || job.Navigate != "" {
		site.Notes = append(site.Notes, "urlwatch read it in a browser; tidings reads the page as it is served")
	}
	if job.Data.Kind != 0 || strings.EqualFold(job.Method, "POST") {
		site.Notes = append(site.Notes, "urlwatch sent it a POST with data; tidings reads the page with GET")
	}
	for _, f := range filters(job.Filter) {
		kind, arg, _ := strings.Cut(f, ":")
		switch strings.TrimSpace(kind) {
		case "grepi":
			site.addRule(RuleText, "/"+strings.TrimSpace(arg)+"/")
		case "html2text", "strip", "sort", "remove-duplicate-lines", "remove_repeated", "beautify", "pretty-xml", "format-json":
			// tidings reads a page's text as these leave it, or compares
			// it line by line whatever their order.
		default:
			site.Notes = append(site.Notes, fmt.Sprintf("the filter %s is not kept: tidings follows the page's whole text (leave parts out with rules)", quote(f)))
		}
	}
}

// filters reads a job's filter, which urlwatch takes as a string of
// filters joined by commas, or as a list of strings and of one-key
// mappings (- css: .main), as "kind:argument" each.
func filters(n yaml.Node) []string {
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		for f := range strings.SplitSeq(n.Value, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			switch item.Kind {
			case yaml.ScalarNode:
				out = append(out, strings.TrimSpace(item.Value))
			case yaml.MappingNode:
				for i := 0; i+1 < len(item.Content); i += 2 {
					out = append(out, item.Content[i].Value+":"+filterArg(item.Content[i+1]))
				}
			}
		}
	}
	if len(out) > MaxRules {
		out = out[:MaxRules]
	}
	return out
}

// filterArg is a filter's argument: a scalar, or the selector or
// pattern of a mapping of options ({selector: .x, exclude: …}).
func filterArg(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch n.Content[i].Value {
			case "selector", "re", "text", "pattern", "expression":
				return n.Content[i+1].Value
			}
		}
	}
	return ""
}
