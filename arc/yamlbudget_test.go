package arc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// hostileYAML is a sitemap of one page with a huge list nobody reads.
func hostileYAML(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString("arc_sitemap_version: '2.1'\nsite: https://example.com\ngenerated_at: 2025-11-09\npages:\n  - url: https://example.com/a\n    ai_indexable: true\nx-junk:\n")
	for b.Len() < size {
		b.WriteString("- x\n")
	}
	return b.Bytes()
}

// ordinaryYAML is a sitemap of n pages as people write them.
func ordinaryYAML(n int) []byte {
	var b bytes.Buffer
	b.WriteString("arc_sitemap_version: '2.1'\nsite: https://example.com\ngenerated_at: 2025-11-09T08:00:00Z\npages:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - url: https://example.com/page/%d\n    lastmod: 2025-11-08T12:00:00Z\n    ai_indexable: true\n"+
			"    ai_summary: \"Signup page for AquaGrow; collects email and password, for onboarding.\"\n"+
			"    ai_tags: [signup, onboarding, user-account]\n    ai_checksum: \"sha256:af3c9e\"\n", i)
	}
	return b.Bytes()
}

// TestParseYAMLReadsLargeSitemaps: the bound on nodes leaves room for the
// 25,000 pages its error message promises.
func TestParseYAMLReadsLargeSitemaps(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a 6 MB document")
	}
	sm, err := Parse(bytes.NewReader(ordinaryYAML(25000)), YAML)
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Pages) != 25000 || len(sm.Pages[0].Tags) != 3 {
		t.Errorf("read %d pages, first %+v; want 25000 with their tags", len(sm.Pages), sm.Pages[0])
	}
}

func TestParseYAMLRefusesHugeDocumentsBeforeBuildingThem(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 30 MB document")
	}
	doc := hostileYAML(hostileSize)
	var err error
	n := allocated(func() { _, err = Parse(bytes.NewReader(doc), YAML) })
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "nodes") {
		t.Fatalf("err = %v, want an *Error about the number of nodes", err)
	}
	t.Logf("%d MB in, %d MB allocated: %v", len(doc)>>20, n>>20, err)
	// yaml.v3 would allocate 65 to 130 times the input: a refusal costs
	// reading the document once (twice under the race detector).
	if limit := 4 * uint64(len(doc)); n > limit {
		t.Errorf("refusing %d bytes allocated %d, want at most %d", len(doc), n, limit)
	}
}

func BenchmarkParseHostileYAML(b *testing.B) {
	doc := hostileYAML(hostileSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(bytes.NewReader(doc), YAML)
	}
}

// FuzzYAMLNodes checks that yamlNodes never counts fewer nodes than
// yaml.v3 builds: that bound is what keeps a YAML document's memory in
// check.
func FuzzYAMLNodes(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, doc := range []string{
		"a: &a [*a, *a]\n", "{a: 1, b: [x, y], ? c : d}", "- - - x\n-\n- ", "[a: 1, :b, {c}, {d: }]",
		`{"a":1,"b":[2,{"c":"d"}]}`, "--- x\n", "? \n: \n", "a: |\n  - x\n  - y\n", "a:\r- b\r- c",
		"x: !!map {<<: *a}", ": \n:\n-\n?\n", "a: 'it''s'\nb: \"[x, y]\"\n",
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil {
			return
		}
		if built, counted := treeNodes(&doc), yamlNodes(data); built > counted {
			t.Errorf("yaml.v3 built %d nodes, yamlNodes counted %d", built, counted)
		}
	})
}

func treeNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += treeNodes(c)
	}
	return count
}

// FuzzYAMLPlans checks that building only what the rules read gives the
// sitemap, or the error, that converting every value gave.
func FuzzYAMLPlans(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("arc_sitemap_version: 2.1\nsite: https://e.org\ngenerated_at: 2025-11-09\nd: &d {ai_indexable: true, ai_snapshot: {title: T, x: [1]}}\n" +
		"pages:\n  - {<<: *d, url: 'https://e.org/a'}\n  - <<: [*d, {ai_tags: [a]}]\n    url: https://e.org/b\n  - [*d]\nmetadata: {crawl_rate: 1/s, x: {[a]: b}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gotErr := parseYAML(data)
		want, wantErr := convertAll(data)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("error %v, converting all gave %v", gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("sitemap\n%+v\nconverting all gave\n%+v", got, want)
		}
	})
}

// convertAll is parseYAML as it was: every value converted, nothing walked.
func convertAll(data []byte) (*Sitemap, error) {
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
			if b.sawPages {
				return nil, &Error{Line: v.Line, Msg: "pages is given twice"}
			}
			b.sawPages = true
			seq := deref(v)
			if seq.Kind != yaml.SequenceNode {
				return nil, &Error{Line: v.Line, Msg: "pages must be a list of pages"}
			}
			for _, item := range seq.Content {
				pv, err := c.value(item, 2, nil)
				if err != nil {
					return nil, err
				}
				b.page(pv)
			}
			continue
		}
		val, err := c.value(v, 1, nil)
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
