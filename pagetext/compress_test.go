package pagetext

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func TestCompressRoundTrip(t *testing.T) {
	page, _ := Extract([]byte(realisticPage(20<<10, 0)), "text/html", "")
	for _, text := range []string{"", "a", "日本語\nの文章", page.Text} {
		blob := Compress(text)
		got, err := Decompress(blob, DefaultMaxText)
		if err != nil || got != text {
			t.Errorf("round trip of %d bytes: %d bytes back, err %v", len(text), len(got), err)
		}
	}
	if blob := Compress(page.Text); len(blob) > len(page.Text)/3 {
		t.Errorf("%d bytes of text compressed to %d", len(page.Text), len(blob))
	}
	if got, err := Decompress(nil, 10); got != "" || err != nil {
		t.Errorf("empty blob: %q, %v", got, err)
	}
}

// zstdBlob is a blob as tidings stored text before brotli: a bare zstd
// frame, with its size in the header.
func zstdBlob(t *testing.T, text []byte) []byte {
	t.Helper()
	e, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(text, nil)
}

// A blob bigger than the limit when expanded is refused, whether its
// header says so or hides it, in either format.
func TestDecompressLimits(t *testing.T) {
	huge := bytes.Repeat([]byte("cats "), 4<<20) // 20 MiB, compresses to little
	var stream bytes.Buffer
	w, err := zstd.NewWriter(&stream)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(huge); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		blob  []byte
		limit int
	}{
		{"brotli", Compress(string(huge)), 1 << 20},
		{"brotli, one byte over", Compress(strings.Repeat("a", 1001)), 1000},
		{"zstd, size in header", zstdBlob(t, huge), 1 << 20},
		{"zstd, no size in header", stream.Bytes(), 1 << 20},
		{"zstd, two frames", append(zstdBlob(t, bytes.Repeat([]byte("a"), 600)), zstdBlob(t, bytes.Repeat([]byte("b"), 600))...), 1000},
		{"negative limit", Compress("x"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decompress(tt.blob, tt.limit); !errors.Is(err, ErrBlobTooLarge) {
				t.Errorf("err = %v, want ErrBlobTooLarge", err)
			}
		})
	}
	if got, err := Decompress(stream.Bytes(), len(huge)); err != nil || len(got) != len(huge) {
		t.Errorf("streamed zstd blob within the limit: %d bytes, %v", len(got), err)
	}
	if got, err := Decompress(Compress(strings.Repeat("a", 1000)), 1000); err != nil || len(got) != 1000 {
		t.Errorf("brotli blob at the limit: %d bytes, %v", len(got), err)
	}
}

// Text stored by earlier versions, zstd-compressed, is still read.
func TestDecompressZstd(t *testing.T) {
	page, _ := Extract([]byte(realisticPage(20<<10, 0)), "text/html", "")
	got, err := Decompress(zstdBlob(t, []byte(page.Text)), DefaultMaxText)
	if err != nil || got != page.Text {
		t.Errorf("zstd blob: %d bytes back of %d, err %v", len(got), len(page.Text), err)
	}
	if brotli, zstd := len(Compress(page.Text)), len(zstdBlob(t, []byte(page.Text))); brotli >= zstd {
		t.Errorf("%d bytes of text: %d bytes stored, no fewer than zstd's %d", len(page.Text), brotli, zstd)
	}
}

func TestDecompressCorrupt(t *testing.T) {
	blob := Compress(strings.Repeat("The cat sleeps on the mat. ", 100))
	for _, bad := range [][]byte{
		[]byte("not a blob at all"),
		blob[:len(blob)/2],
		append(append([]byte{}, blob[:10]...), bytes.Repeat([]byte{0xff}, 40)...),
		append(append([]byte{}, zstdMagic...), bytes.Repeat([]byte{0xff}, 40)...),
	} {
		if got, err := Decompress(bad, DefaultMaxText); err == nil {
			t.Errorf("corrupt blob decoded to %d bytes", len(got))
		}
	}
}

// Encoders and decoders are pooled; they must hold up under concurrent use.
func TestCompressConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			text := strings.Repeat(string(rune('a'+i)), 1000*(i+1))
			for range 20 {
				if got, err := Decompress(Compress(text), DefaultMaxText); err != nil || got != text {
					t.Errorf("goroutine %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
