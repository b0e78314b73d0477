package feeds

import (
	"strings"
	"testing"
)

func TestStatusTexts(t *testing.T) {
	if got, want := FailingTitle("My Shrine", day1), "Harvests of My Shrine have failed since 1 May 2024 09:30 UTC"; got != want {
		t.Errorf("FailingTitle = %q, want %q", got, want)
	}
	if got, want := FailingTitle(" \x00", day1), "Harvests of this collection have failed since 1 May 2024 09:30 UTC"; got != want {
		t.Errorf("FailingTitle without a name = %q, want %q", got, want)
	}
	if got, want := RecoveredTitle("My Shrine"), "Harvests of My Shrine work again"; got != want {
		t.Errorf("RecoveredTitle = %q, want %q", got, want)
	}
	failing := FailingHTML(day1, `the change list at https://x.example/<b>cl</b> returned 500`)
	for _, want := range []string{`<time datetime="2024-05-01T09:30:00Z">1 May 2024 09:30 UTC</time>`, `<q>the change list at https://x.example/&lt;b&gt;cl&lt;/b&gt; returned 500</q>`} {
		if !strings.Contains(failing, want) {
			t.Errorf("FailingHTML lacks %s:\n%s", want, failing)
		}
	}
	if sanitizeHTML(failing) != failing {
		t.Errorf("FailingHTML is changed by the sanitizer:\n%s\n%s", failing, sanitizeHTML(failing))
	}
	recovered := RecoveredHTML(day1, day2)
	if !strings.Contains(recovered, "2024-05-02T18:05:07Z") || sanitizeHTML(recovered) != recovered {
		t.Errorf("RecoveredHTML:\n%s", recovered)
	}
}

func TestPageTitleAndHTML(t *testing.T) {
	tests := []struct{ kind, title, url, want string }{
		{"updated", "About me", "https://s.example/a", "Updated: About me"},
		{"created", "", "https://s.example/b", "Created: https://s.example/b"},
		{"deleted", " \x01 ", "https://s.example/c", "Deleted: https://s.example/c"},
		{"moved", "X", "https://s.example/d", "Changed: X"},
	}
	for _, tt := range tests {
		if got := PageTitle(tt.kind, tt.title, tt.url); got != tt.want {
			t.Errorf("PageTitle(%q, %q, %q) = %q, want %q", tt.kind, tt.title, tt.url, got, tt.want)
		}
	}
	it := DigestItem{URL: "https://s.example/a", Kind: "updated", Datetime: day1, Title: "À propos", Language: "fr"}
	got := PageHTML(it, "Nouvelles <images>", "")
	want := `<ul><li lang="fr"><a href="https://s.example/a">À propos</a> (updated, <time datetime="2024-05-01T09:30:00Z">2024-05-01 09:30 UTC</time>)</li></ul>` + "\n" + `<p lang="fr">Nouvelles &lt;images&gt;</p>`
	if got != want {
		t.Errorf("PageHTML =\n%s\nwant\n%s", got, want)
	}
	if sanitizeHTML(got) != got {
		t.Errorf("PageHTML is changed by the sanitizer:\n%s", sanitizeHTML(got))
	}
	it.Language = `fr"><script>`
	if got := PageHTML(it, "", ""); strings.Contains(got, "lang=") || strings.Contains(got, "<p") {
		t.Errorf("PageHTML with a bad language or no summary: %s", got)
	}
}
