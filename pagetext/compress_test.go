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

// A blob bigger than the limit when expanded is refused, whether its
// header says so or hides it.
func TestDecompressLimits(t *testing.T) {
	huge := bytes.Repeat([]byte("cats "), 4<<20) // 20 MiB, compresses to little
	withSize := Compress(string(huge))
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
		{"size in header", withSize, 1 << 20},
		{"no size in header", stream.Bytes(), 1 << 20},
		{"two frames", append(Compress(strings.Repeat("a", 600)), Compress(strings.Repeat("b", 600))...), 1000},
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
		t.Errorf("streamed blob within the limit: %d bytes, %v", len(got), err)
	}
}

func TestDecompressCorrupt(t *testing.T) {
	blob := Compress(strings.Repeat("The cat sleeps on the mat. ", 100))
	for _, bad := range [][]byte{
		[]byte("not zstd at all"),
		blob[:len(blob)/2],
		append(append([]byte{}, blob[:10]...), bytes.Repeat([]byte{0xff}, 40)...),
	} {
		if got, err := Decompress(bad, DefaultMaxText); err == nil {
			t.Errorf("corrupt blob decoded to %d bytes", len(got))
		}
	}
}

// One encoder and decoder are shared; they must hold up under concurrent use.
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
