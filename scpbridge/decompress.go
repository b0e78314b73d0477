package scpbridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sync/atomic"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// ratioSlack is added to what the ratio allows, at every point of the
// stream: a tiny file of highly repetitive pages (a gzip or zstd frame
// costs a few dozen bytes whatever it holds) may run past 100:1 without
// being a bomb, and whatever it gains by this stays under 64 KiB. A grace
// that waived the ratio below some size instead let any file up to that
// size through at any ratio.
const ratioSlack = 64 << 10

// maxWindow caps the zstd window a file may ask for (the zstd tool's own
// default limit is 128 MiB; levels up to 19 use at most 8 MiB).
const maxWindow = 64 << 20

// maxLayers: a .scp.gz served again with Content-Encoding: gzip is
// compressed twice; more than that is not a collection.
const maxLayers = 2

const bufSize = 256 << 10

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// start detects the format and builds the chain: input counter, up to two
// decompressors, output counter (which enforces the caps), line buffer.
func (r *Reader) start() error {
	if r.src == nil {
		return fmt.Errorf("%w: no input", ErrFormat)
	}
	r.in = &inCounter{r: r.src, max: r.opts.MaxCompressed}
	var cur io.Reader = r.in
	for layer := 0; ; layer++ {
		br := bufio.NewReaderSize(cur, 64<<10)
		magic, _ := br.Peek(4)
		kind := detect(magic)
		if kind == "" || layer == maxLayers {
			if layer == 0 && !plain(br) {
				return ErrFormat
			}
			if layer == 0 {
				r.fmt = "plain"
			}
			cur = br
			break
		}
		dec, err := r.decompressor(kind, br)
		if err != nil {
			return err
		}
		if r.fmt != "" {
			r.fmt += "+"
		}
		r.fmt += kind
		cur = dec
	}
	r.out = &outCounter{r: cur, in: r.in, lim: r.opts.Limits}
	r.br = bufio.NewReaderSize(r.out, bufSize)
	return nil
}

func detect(magic []byte) string {
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(magic, zstdMagic):
		return "zstd"
	case len(magic) == 4 && magic[0]&0xf0 == 0x50 && bytes.Equal(magic[1:], []byte{0x2a, 0x4d, 0x18}):
		// A zstd skippable frame may come first.
		return "zstd"
	}
	return ""
}

// plain reports whether uncompressed input looks like JSON Lines: its first
// byte that is not white space opens an object (or there is none).
func plain(br *bufio.Reader) bool {
	head, _ := br.Peek(512)
	t := bytes.TrimLeft(head, " \t\r\n")
	return len(t) == 0 && len(head) < 512 || len(t) > 0 && t[0] == '{'
}

func (r *Reader) decompressor(kind string, br *bufio.Reader) (io.Reader, error) {
	if kind == "gzip" {
		zr, err := kgzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		r.close = append(r.close, func() { zr.Close() })
		return zr, nil
	}
	zr, err := zstd.NewReader(br,
		zstd.WithDecoderMaxWindow(maxWindow),
		zstd.WithDecoderLowmem(true),
		// Two blocks in flight: decoding overlaps parsing on a small
		// machine without holding more than a couple of blocks.
		zstd.WithDecoderConcurrency(2))
	if err != nil {
		return nil, err
	}
	r.close = append(r.close, zr.Close)
	return zr, nil
}

// inCounter counts the compressed bytes read and stops at the cap. The
// zstd decoder reads its input in a goroutine of its own while the ratio
// check reads the count, so the count is atomic.
type inCounter struct {
	r   io.Reader
	n   atomic.Int64
	max int64
	err error // a failure of the input itself, not of decoding
}

func (c *inCounter) Read(p []byte) (int, error) {
	// Reading one byte past the cap is enough to know the file is larger.
	if rest := c.max - c.n.Load() + 1; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	if c.n.Add(int64(n)) > c.max {
		return n, ErrCompressedSize
	}
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// outCounter counts decompressed bytes and aborts as soon as the size cap
// or the ratio to the compressed bytes read so far is crossed.
type outCounter struct {
	r   io.Reader
	in  *inCounter
	n   int64
	lim Limits
}

func (c *outCounter) Read(p []byte) (int, error) {
	// Ask for no more than the caps allow now, and one byte to see them
	// crossed: a large read must not carry a bomb's output past them.
	limit := min(c.lim.MaxDecompressed, c.lim.MaxRatio*c.in.n.Load()+ratioSlack)
	if rest := limit - c.n + 1; rest > 0 && int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	switch {
	case c.n > c.lim.MaxDecompressed:
		return 0, ErrSize
	case c.n > c.lim.MaxRatio*c.in.n.Load()+ratioSlack:
		return 0, ErrRatio
	}
	return n, err
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
