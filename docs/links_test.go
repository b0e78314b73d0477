package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	htmlSrc   = regexp.MustCompile(`\ssrc="([^"]+)"`)
	notInSlug = regexp.MustCompile("[^a-z0-9 _-]")
)

// TestLinksBetweenPages follows every relative link of the README, of
// BENCHMARKS.md and of the pages here: the file it names exists, and the
// heading its #fragment names is on that page.
func TestLinksBetweenPages(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join("..", "README.md"), filepath.Join("..", "BENCHMARKS.md"))
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range proseLines(string(data)) {
			var targets []string
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			for _, m := range htmlSrc.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if msg := checkLink(page, target); msg != "" {
					t.Errorf("%s:%d: %s: %s", page, n, target, msg)
				}
			}
		}
	}
}

// proseLines returns the page's lines outside fenced code blocks, by line
// number from 1.
func proseLines(md string) map[int]string {
	out := map[int]string{}
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out[i+1] = line
		}
	}
	return out
}

// checkLink says what is wrong with a link from page, or "".
func checkLink(page, target string) string {
	file, fragment, _ := strings.Cut(target, "#")
	path := page
	if file != "" {
		path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
		if _, err := os.Stat(path); err != nil {
			return "no such file"
		}
	}
	if fragment == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	for _, line := range proseLines(string(data)) {
		if heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") && slug(heading) == fragment {
			return ""
		}
	}
	return "no heading " + fragment + " on " + path
}

// slug is the anchor GitHub gives a heading: lower case, without
// punctuation, spaces as hyphens.
func slug(heading string) string {
	s := notInSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), "")
	return strings.ReplaceAll(s, " ", "-")
}
