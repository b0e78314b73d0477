package source_test

import (
	"slices"
	"testing"

	_ "tidings/harvest/sources" // registers the sources tidings follows
	"tidings/source"
)

// TestDescribe: each collection says how precisely tidings follows it,
// watched pages with how many.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name    string
		watched int
		want    string
	}{
		{"pages", 37, "pages: tidings found no change information it can read on the site, so it watches 37 of its pages"},
		{"pages", 1, "pages: tidings found no change information it can read on the site, so it watches its 1 page"},
		{"resourcesync", 0, "resourcesync: follows the site's ResourceSync change list, or compares its resource lists"},
		{"sitemap", 0, "sitemap: follows the sitemap, confirmed by reading pages"},
		{"gopher", 0, "gopher"},
	} {
		if got := source.Describe(tc.name, tc.watched); got != tc.want {
			t.Errorf("Describe(%q, %d) = %q, want %q", tc.name, tc.watched, got, tc.want)
		}
	}
}

// TestOrder: the most precise sources first, ResourceSync first of them.
func TestOrder(t *testing.T) {
	want := []string{"resourcesync", "arc", "scp", "sitemap", "pages"}
	if got := source.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

// TestSubtitleAndHome: a feed built from what the site publishes says
// so; one tidings builds by comparing says how. A collection keyed by a
// page stands for that page, the others for the site.
func TestSubtitleAndHome(t *testing.T) {
	if got, want := source.Subtitle("arc", "https://a.example/arc.json", 0), "Changes to https://a.example/arc.json, as the site's change information tells them"; got != want {
		t.Errorf("ARC subtitle %q, want %q", got, want)
	}
	if got, want := source.Subtitle("sitemap", "https://a.example/", 0), "Changes to https://a.example/ (sitemap: follows the sitemap, confirmed by reading pages)"; got != want {
		t.Errorf("sitemap subtitle %q, want %q", got, want)
	}
	for _, tc := range []struct{ name, want string }{
		{"resourcesync", "https://a.example/docs/"}, {"sitemap", "https://a.example/docs/"},
		{"arc", "https://a.example/"}, {"scp", "https://a.example/"}, {"pages", "https://a.example/"},
	} {
		if got := source.Home(tc.name, "https://a.example/docs/", "https://a.example/"); got != tc.want {
			t.Errorf("Home of a %s collection = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestRegisterRefusesADuplicate: two sources of one name would make the
// store's name ambiguous.
func TestRegisterRefusesADuplicate(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second source named sitemap was registered")
		}
	}()
	source.Register(source.Info{Name: "sitemap", Help: "again", Follows: func(int) string { return "again" }})
}
