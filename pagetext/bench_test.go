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

func BenchmarkDiff(b *testing.B) {
	v1, _ := Extract([]byte(realisticPage(20<<10, 0)), "text/html", "")
	v2, _ := Extract([]byte(realisticPage(20<<10, 1)), "text/html", "")
	b.SetBytes(int64(len(v1.Text) + len(v2.Text)))
	b.ReportAllocs()
	for b.Loop() {
		d := Compare(v1.Text, v2.Text)
		_ = d.HTML()
		_ = d.Summary()
	}
}

func BenchmarkCompress(b *testing.B) {
	page, _ := Extract([]byte(realisticPage(20<<10, 0)), "text/html", "")
	b.SetBytes(int64(len(page.Text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decompress(Compress(page.Text), DefaultMaxText); err != nil {
			b.Fatal(err)
		}
	}
}
