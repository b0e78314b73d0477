package crawl

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// NotFoundShape is how a site's "not found" page looks when it answers
// 200 with a text that varies at every reading ("We looked everywhere",
// random words, random links), so that no hash of it recognises the next
// one: its title, and the lines it has at every reading that the site's
// pages have not. It is learned from two readings of addresses that
// cannot exist (ShapeOf), and loses the lines a page of the site turns
// out to have too (Refine).
type NotFoundShape struct {
	Title string   `json:"title"`
	Lines []string `json:"lines"`
}

// Bounds of a shape kept with a watched page set.
const (
	maxShapeLines    = 20
	maxShapeLineSize = 200
)

// ShapeOf is the shape of two readings of the "not found" page, given
// their titles and texts; nil when their titles differ (or are none) or
// they share no line.
func ShapeOf(title1, text1, title2, text2 string) *NotFoundShape {
	if title1 == "" || title1 != title2 {
		return nil
	}
	second := map[string]bool{}
	for _, l := range strings.Split(text2, "\n") {
		second[l] = true
	}
	s := &NotFoundShape{Title: title1}
	for _, l := range strings.Split(text1, "\n") {
		if l == "" || !second[l] || len(l) > maxShapeLineSize || !utf8.ValidString(l) || slices.Contains(s.Lines, l) {
			continue
		}
		if s.Lines = append(s.Lines, l); len(s.Lines) == maxShapeLines {
			break
		}
	}
	if len(s.Lines) == 0 {
		return nil
	}
	return s
}

// Refine leaves out of the shape the lines a page of the site has (its
// header, its footer), which say nothing of "not found"; false when none
// is left, and the shape tells nothing.
func (s *NotFoundShape) Refine(text string) bool {
	if s == nil {
		return false
	}
	has := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		has[l] = true
	}
	s.Lines = slices.DeleteFunc(s.Lines, func(l string) bool { return has[l] })
	return len(s.Lines) > 0
}

// Is reports whether a page with this title and text is the "not found"
// page: the same title, and every line of the shape.
func (s *NotFoundShape) Is(title, text string) bool {
	if s == nil || len(s.Lines) == 0 || title != s.Title {
		return false
	}
	has := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		has[l] = true
	}
	for _, l := range s.Lines {
		if !has[l] {
			return false
		}
	}
	return true
}
