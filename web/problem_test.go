package web

import (
	"slices"
	"testing"
)

func TestNewProblem(t *testing.T) {
	p := newProblem("no change information (ResourceSync, SCP or ARC) was found; tried: http://a.example/.well-known/resourcesync returned 404 Not Found; http://a.example/robots.txt returned 404 Not Found; http://a.example/.well-known/resourcesync returned 404 Not Found")
	if p.Headline == "" || p.Headline[len(p.Headline)-1] != '.' {
		t.Errorf("headline %q, want one sentence", p.Headline)
	}
	want := []string{"http://a.example/.well-known/resourcesync returned 404 Not Found", "http://a.example/robots.txt returned 404 Not Found"}
	if !slices.Equal(p.Details, want) {
		t.Errorf("details %q, want %q", p.Details, want)
	}
	p = newProblem("the address has no host")
	if p.Headline != "The address has no host." || p.Details != nil {
		t.Errorf("a plain message: %+v", p)
	}
}
