package pagetext

import "strings"

// SharedLines returns the lines found in a quarter of texts, and in two
// at least: a generated site's navigation and footer, which a new page or
// a new build changes on every page at once. Not more than a quarter: the
// extractor finds the main text of some pages and falls back to the whole
// body on others, so those lines are in only some of the texts.
func SharedLines(texts []string) map[string]bool {
	if len(texts) < 2 {
		return nil
	}
	count := map[string]int{}
	for _, t := range texts {
		seen := map[string]bool{}
		for _, l := range strings.Split(t, "\n") {
			if !seen[l] {
				seen[l] = true
				count[l]++
			}
		}
	}
	out := map[string]bool{}
	for l, n := range count {
		if n >= 2 && n*4 >= len(texts) {
			out[l] = true
		}
	}
	return out
}

// CompareWithout compares two texts as Compare does, with the lines of
// shared left out of both.
func CompareWithout(old, new string, shared map[string]bool) Diff {
	return Compare(strings.Join(without(old, shared), "\n"), strings.Join(without(new, shared), "\n"))
}

func without(t string, shared map[string]bool) []string {
	var out []string
	for _, l := range strings.Split(t, "\n") {
		if !shared[l] {
			out = append(out, l)
		}
	}
	return out
}
