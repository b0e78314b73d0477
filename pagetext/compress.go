package pagetext

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// maxDecoded is the most any stored blob may expand to, whatever limit a
// caller passes: a guard on the decoder itself.
const maxDecoded = 64 << 20

// ErrBlobTooLarge means a compressed blob expands past the allowed size.
var ErrBlobTooLarge = errors.New("pagetext: stored text larger than allowed")

// One encoder and one decoder serve every goroutine: EncodeAll and
// DecodeAll are safe for concurrent use, and building them is what costs.
var (
	encoder = sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			panic(err) // only on invalid options
		}
		return e
	})
	decoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(maxDecoded),
			zstd.WithDecodeAllCapLimit(true))
		if err != nil {
			panic(err) // only on invalid options
		}
		return d
	})
)

// Compress returns text compressed with zstd, for storage.
func Compress(text string) []byte {
	return encoder().EncodeAll([]byte(text), nil)
}

// Decompress returns the text in a blob made by Compress, refusing with
// ErrBlobTooLarge to expand it past limit bytes: a corrupt or hostile blob
// costs at most limit bytes of memory.
func Decompress(blob []byte, limit int) (string, error) {
	if len(blob) == 0 {
		return "", nil
	}
	limit = min(max(limit, 0), maxDecoded)
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
	out, err := decoder().DecodeAll(blob, make([]byte, 0, size))
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return "", fmt.Errorf("%w: over %d bytes", ErrBlobTooLarge, limit)
	}
	if err != nil {
		return "", fmt.Errorf("pagetext: decompress stored text: %w", err)
	}
	return string(out), nil
}
