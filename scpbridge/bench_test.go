package scpbridge

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// BenchmarkDecodeZstdDelta decodes generated zstd deltas of 100 MiB and
// 1 GiB (decompressed), checksum verified, reporting throughput over the
// decompressed bytes and the peak live heap, which must not grow with the
// file. The files are generated only when the benchmark runs (a few
// seconds), in a temporary directory, or kept in $SCPBENCH_DIR to be reused
// and compared with `zstd -d`.
func BenchmarkDecodeZstdDelta(b *testing.B) {
	dir := os.Getenv("SCPBENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	for _, size := range []int64{100 << 20, 1 << 30} {
		b.Run(sizeString(size), func(b *testing.B) {
			path := filepath.Join(dir, fmt.Sprintf("delta-%d.scp.zst", size>>20))
			raw, pages := benchFile(b, path, size)
			b.SetBytes(raw)
			var peak uint64
			for b.Loop() {
				n, p := decodeBench(b, path)
				if n != pages {
					b.Fatalf("decoded %d pages, want %d", n, pages)
				}
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// decodeBench reads every page of the file while sampling the live heap.
func decodeBench(b *testing.B, path string) (pages int, peak uint64) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	var stop atomic.Bool
	done := make(chan uint64)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var top uint64
		for !stop.Load() {
			metrics.Read(sample)
			top = max(top, sample[0].Value.Uint64())
			time.Sleep(time.Millisecond)
		}
		done <- top
	}()
	r := NewReader(f, Options{SitemapURL: "https://example.org/sitemap.xml",
		Limits: Limits{MaxCompressed: 4 << 30, MaxDecompressed: 4 << 30}})
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		pages++
	}
	stop.Store(true)
	if r.Checksum() != ChecksumAfterMetadata || r.WarningCount() != 0 {
		b.Fatalf("checksum %q, warnings %d", r.Checksum(), r.WarningCount())
	}
	return pages, <-done
}

// benchFile writes (or finds) a delta of about size decompressed bytes and
// returns its exact decompressed size and page count.
func benchFile(b *testing.B, path string, size int64) (raw int64, pages int) {
	// Pass 1 hashes the pages for the checksum; pass 2 writes the file.
	sum := sha256.New()
	raw, pages = genPages(size, sum)
	digest := hex.EncodeToString(sum.Sum(nil))
	metaLine := `{"collection":{"id":"bench","section":"all","type":"delta","generated":"2025-01-15T23:00:00Z",` +
		`"since":"2025-01-14T00:00:00Z","checksum":"sha256:` + digest + `","version":"0.1"}}` + "\n"
	raw += int64(len(metaLine))
	if st, err := os.Stat(path + ".ok"); err == nil && st.Size() == 0 {
		return raw, pages
	}
	start := time.Now()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zw, err := zstd.NewWriter(f)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(zw, 1<<20)
	bw.WriteString(metaLine)
	genPages(size, bw)
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	os.WriteFile(path+".ok", nil, 0o644)
	b.Logf("generated %s: %d pages, %d bytes decompressed, %d compressed, in %s",
		path, pages, raw, st.Size(), time.Since(start).Round(time.Millisecond))
	return raw, pages
}

var benchWords = func() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 4000)
	for i := range words {
		w := make([]byte, 3+rng.IntN(8))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(w)
	}
	return words
}()

// genPages writes pages of a few KiB of random words until size bytes,
// the same for the same size.
func genPages(size int64, w io.Writer) (written int64, pages int) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := func(buf []byte, n int) []byte {
		for i := range n {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = append(buf, benchWords[rng.IntN(len(benchWords))]...)
		}
		return buf
	}
	var line []byte
	var h hash.Hash
	if hw, ok := w.(hash.Hash); ok {
		h = hw
	}
	for written < size {
		line = append(line[:0], `{"url":"https://example.org/p/`...)
		line = strconv.AppendInt(line, int64(pages), 10)
		line = append(line, `","title":"`...)
		line = words(line, 6)
		line = append(line, `","description":"`...)
		line = words(line, 25)
		line = append(line, `","author":"Ann Example","modified":"2025-01-15T`...)
		line = fmt.Appendf(line, "%02d:%02d:00Z", pages/60%24, pages%60)
		line = append(line, `","language":"en","content":[{"type":"heading","level":1,"text":"`...)
		line = words(line, 5)
		line = append(line, `"}`...)
		for range 2 + rng.IntN(6) {
			line = append(line, `,{"type":"text","text":"`...)
			line = words(line, 40+rng.IntN(60))
			line = append(line, `"}`...)
		}
		line = append(line, `,{"type":"link","url":"https://example.org/","text":"home"}]}`+"\n"...)
		if h != nil {
			h.Write(line)
		} else {
			w.Write(line)
		}
		written += int64(len(line))
		pages++
	}
	return written, pages
}
