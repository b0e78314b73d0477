package rsync

import (
	"strings"
	"testing"
)

// TestChangeNotes: a change list entry's tidings:note is read by its
// namespace, whatever the prefix, kept to one line of at most
// MaxNoteBytes, and no other namespace's note is taken for it.
func TestChangeNotes(t *testing.T) {
	long := strings.Repeat("é", MaxNoteBytes)
	doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:n="` + NSNote + `" xmlns:o="urn:other">
  <rs:ln rel="up" href="https://example.org/capabilitylist.xml"/>
  <rs:md capability="changelist" from="2026-01-01T00:00:00Z"/>
  <url><loc>https://example.org/a.html</loc><rs:md change="updated" datetime="2026-01-02T00:00:00Z" n:note=" Fixed
  the   link "/></url>
  <url><loc>https://example.org/b.html</loc><rs:md change="updated" datetime="2026-01-02T00:00:00Z" o:note="not ours"/></url>
  <url><loc>https://example.org/c.html</loc><rs:md change="created" datetime="2026-01-02T00:00:00Z" n:note="` + long + `"/></url>
</urlset>`
	d, err := Parse(strings.NewReader(doc), "https://example.org/changelist.xml")
	if err != nil || len(d.Warnings) > 0 || len(d.Entries) != 3 {
		t.Fatalf("%v %q %d", err, d.Warnings, len(d.Entries))
	}
	if got := d.Entries[0].Note; got != "Fixed the link" {
		t.Errorf("note %q", got)
	}
	if got := d.Entries[1].Note; got != "" {
		t.Errorf("another namespace's note was read: %q", got)
	}
	if got := d.Entries[2].Note; len(got) != MaxNoteBytes || !strings.HasPrefix(long, got) {
		t.Errorf("a long note kept %d bytes", len(got))
	}
}
