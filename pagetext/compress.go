package pagetext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// maxDecoded is the most any stored blob may expand to, whatever limit a
// caller passes: a guard on the decoder itself.
const maxDecoded = 64 << 20

// ErrBlobTooLarge means a compressed blob expands past the allowed size.
var ErrBlobTooLarge = errors.New("pagetext: stored text larger than allowed")

// Stored text is a brotli stream after the tag byte blobBrotli. Brotli's
// literal coding looks at the bytes before each one, which suits prose:
// measured on pages' readable text and on English documents, quality 5
// stores 5 to 12 % less than zstd's default level at under 1 ms for 11 KiB.
// Higher qualities save more but cost 10 to 25 ms a page, more than the
// whole of the rest of a snapshot. Blobs written before are bare zstd
// frames, told apart by zstd's magic number, and are still read.
const (
	blobBrotli    = 0x01
	brotliQuality = 5
	// brotliWindow, 64 KiB, covers a typical page's text whole; prose
	// gains little from matches further back, and a larger window stored
	// a few bytes more a page (its size is coded with each distance).
	brotliWindow = 16
)

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Encoders are pooled: building one allocates its tables, which is most of
// what compressing a page costs in memory.
var encoders = sync.Pool{New: func() any {
	return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: brotliQuality, LGWin: brotliWindow})
}}

var decoders sync.Pool // of *brotli.Reader

// zstdDecoder reads the blobs stored before brotli; DecodeAll is safe for
// concurrent use.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxDecoded),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		panic(err) // only on invalid options
	}
	return d
})

var scratch = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Compress returns text compressed for storage.
func Compress(text string) []byte {
	buf := scratch.Get().(*bytes.Buffer)
	buf.Reset()
	buf.WriteByte(blobBrotli)
	w := encoders.Get().(*brotli.Writer)
	w.Reset(buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = io.WriteString(w, text)
	_ = w.Close()
	w.Reset(nil)
	encoders.Put(w)
	// A harvest holds its pages' blobs until it stores them: each gets
	// exactly its size, where the growing buffer had up to twice that.
	out := bytes.Clone(buf.Bytes())
	if buf.Cap() <= 1<<20 {
		scratch.Put(buf)
	}
	return out
}

// Decompress returns the text in a blob made by Compress, refusing with
// ErrBlobTooLarge to expand it past limit bytes: a corrupt or hostile blob
// costs at most limit bytes of memory.
func Decompress(blob []byte, limit int) (string, error) {
	if len(blob) == 0 {
		return "", nil
	}
	limit = min(max(limit, 0), maxDecoded)
	switch {
	case blob[0] == blobBrotli:
		return decompressBrotli(blob[1:], limit)
	case bytes.HasPrefix(blob, zstdMagic):
		return decompressZstd(blob, limit)
	}
	return "", errors.New("pagetext: decompress stored text: unknown format")
}

func decompressBrotli(stream []byte, limit int) (string, error) {
	r, _ := decoders.Get().(*brotli.Reader)
	if r == nil {
		r = brotli.NewReader(bytes.NewReader(stream))
	} else if err := r.Reset(bytes.NewReader(stream)); err != nil {
		return "", fmt.Errorf("pagetext: decompress stored text: %w", err)
	}
	defer decoders.Put(r)
	var out bytes.Buffer
	n, err := out.ReadFrom(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("pagetext: decompress stored text: %w", err)
	}
	if n > int64(limit) {
		return "", fmt.Errorf("%w: over %d bytes", ErrBlobTooLarge, limit)
	}
	return out.String(), nil
}

func decompressZstd(blob []byte, limit int) (string, error) {
	size := limit
	var h zstd.Header
	if err := h.Decode(blob); err == nil && h.HasFCS {
		if h.FrameContentSize > uint64(limit) {
			return "", fmt.Errorf("%w: %d bytes, over %d", ErrBlobTooLarge, h.FrameContentSize, limit)
		}
		size = int(h.FrameContentSize)
	}
	// DecodeAll stops at the capacity given (WithDecodeAllCapLimit), so a
	// blob lying about its size still cannot grow past limit.
	out, err := zstdDecoder().DecodeAll(blob, make([]byte, 0, size))
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return "", fmt.Errorf("%w: over %d bytes", ErrBlobTooLarge, limit)
	}
	if err != nil {
		return "", fmt.Errorf("pagetext: decompress stored text: %w", err)
	}
	return string(out), nil
}
