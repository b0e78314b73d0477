package pagetext

import "testing"

func BenchmarkExtract(b *testing.B) {
	page := []byte(realisticPage(20<<10, 0))
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Extract(page, "text/html; charset=utf-8", "https://shrine.example/cats.html"); err != nil {
			b.Fatal(err)
		}
	}
}
