package arc

import (
	"bytes"
	"runtime"
	"testing"
)

// hostileSize is about the size of the sitemap that showed the problem:
// 31 MB took 6.6 GB of memory as YAML and 1.13 GB as JSON.
const hostileSize = 30 << 20

const jsonHead = `{"arc_sitemap_version": "2.1", "site": "https://example.com", "generated_at": "2025-11-09T08:00:00Z",`

// hostileJSON is a valid sitemap of one page, with a top-level key nobody
// reads holding millions of small values.
func hostileJSON(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(jsonHead + "\n\"x-junk\": [")
	for b.Len() < size {
		b.WriteString(`{"a":[1,"b"]},`)
	}
	b.WriteString("null],\n" + `"pages": [{"url": "https://example.com/a", "ai_indexable": true}]}`)
	return b.Bytes()
}

// hostileSnapshotJSON is one page whose free-form ai_snapshot is huge.
func hostileSnapshotJSON(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(jsonHead + "\n" + `"pages": [{"url": "https://example.com/a", "ai_indexable": true, "ai_snapshot": {"sections": [`)
	for b.Len() < size {
		b.WriteString(`{"name":"f","fields":["e"]},`)
	}
	b.WriteString(`{}], "title": "Kept"}}]}`)
	return b.Bytes()
}

// nonObjectPagesJSON is a sitemap of one valid page followed by millions
// of page entries that are not objects.
func nonObjectPagesJSON(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(jsonHead + "\n" + `"pages": [{"url": "https://example.com/a", "ai_indexable": true}`)
	for b.Len() < size {
		b.WriteString(",1")
	}
	b.WriteString("]}")
	return b.Bytes()
}

// allocated is the memory f allocates, in bytes.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestParseJSONSkipsUnreadValuesCheaply(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 60 MB of documents")
	}
	for _, tt := range []struct {
		name string
		doc  []byte
	}{
		{"unknown top-level key", hostileJSON(hostileSize)},
		{"huge ai_snapshot", hostileSnapshotJSON(hostileSize)},
		{"millions of pages that are not objects", nonObjectPagesJSON(hostileSize)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sm *Sitemap
			var err error
			n := allocated(func() { sm, err = Parse(bytes.NewReader(tt.doc), JSON) })
			if err != nil {
				t.Fatal(err)
			}
			if len(sm.Pages) != 1 || sm.Pages[0].URL != "https://example.com/a" {
				t.Errorf("pages = %+v, want the one page", sm.Pages)
			}
			if len(sm.Skipped) > maxUnnamedSkipped {
				t.Errorf("%d skipped entries listed, want at most %d", len(sm.Skipped), maxUnnamedSkipped)
			}
			t.Logf("%d MB in, %d MB allocated", len(tt.doc)>>20, n>>20)
			if limit := 4 * uint64(len(tt.doc)); n > limit {
				t.Errorf("parsing %d bytes allocated %d, want at most %d", len(tt.doc), n, limit)
			}
		})
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"héllo wörld", 4, "héll…"},
		{"a\xffbc", 2, "a\ufffd…"},
	} {
		if got := clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func BenchmarkParseHostileJSON(b *testing.B) {
	doc := hostileJSON(hostileSize)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(doc), JSON); err != nil {
			b.Fatal(err)
		}
	}
}
