package rsync

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkParseChangeList measures a change list at the sitemap limit of
// 50,000 entries.
func BenchmarkParseChangeList(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`<urlset xmlns="` + sm09 + `" xmlns:rs="` + rsNS + `">` +
		`<rs:ln rel="up" href="/cap.xml"/><rs:md capability="changelist" from="2024-01-01"/>`)
	for i := range 50_000 {
		fmt.Fprintf(&buf, `<url><loc>https://example.org/p/%d.html</loc><rs:md change="updated" datetime="2024-01-02T10:%02d:00Z" length="%d"/></url>`, i, i%60, i)
	}
	buf.WriteString(`</urlset>`)
	src := buf.Bytes()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Parse(bytes.NewReader(src), "https://example.org/cl.xml")
		if err != nil || len(doc.Entries) != 50_000 {
			b.Fatalf("Parse: %v", err)
		}
	}
}
