package source_test

import (
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

// TestOrder: the most precise sources first, by rank within a tier, as
// they registered: ResourceSync first, watched pages last. The order is
// read off the registry, so a new source fails this test only when its
// tier or rank collides with another's.
func TestOrder(t *testing.T) {
	all := source.All()
	names := source.Names()
	if len(all) < 2 || names[0] != "resourcesync" || names[len(names)-1] != "pages" {
		t.Fatalf("Names() = %q, want resourcesync first and pages last", names)
	}
	for i, info := range all {
		if names[i] != info.Name {
			t.Errorf("Names()[%d] = %q, All()[%d] = %q", i, names[i], i, info.Name)
		}
		if info.Tier < 0 || info.Tier > 2 {
			t.Errorf("%s registered tier %d; the tiers are 0 (the site says what changed), 1 (lists compared) and 2 (pages watched)", info.Name, info.Tier)
		}
		if i == 0 {
			continue
		}
		prev := all[i-1]
		if prev.Tier > info.Tier || prev.Tier == info.Tier && prev.Rank >= info.Rank {
			t.Errorf("%s (tier %d, rank %d) comes after %s (tier %d, rank %d): two sources of a tier need ranks of their own, the order of discovery",
				info.Name, info.Tier, info.Rank, prev.Name, prev.Tier, prev.Rank)
		}
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
