package db

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// A change's diff is stored as the JSON the caller gives (it starts with
// "{"), or, when that is long, compressed: compressedDiff, then the
// base64 of a brotli stream of the JSON. The mark is in the text itself,
// so that rows written before are read as they are, no column is added,
// and both engines keep the column as text (PostgreSQL's text takes no
// arbitrary bytes; base64 costs a third more, brotli saves two thirds or
// more of a diff's prose and JSON). Brotli, as the snapshots' text uses
// (pagetext), at the quality and window measured there: a diff is the
// same prose cut into lines.
const (
	compressedDiff = "~br:"
	// compressDiffOver: a short diff (the counts of a replaced page, a
	// line or two) would gain a few bytes, not worth a decoding each time
	// a feed shows it.
	compressDiffOver = 1 << 10
	diffQuality      = 5
	diffWindow       = 16
	// maxDiffText bounds what a stored diff may expand to when read: the
	// harvest bounds diffs to 64 KiB, older rows were not bounded; a
	// corrupt or hostile row costs no more than this.
	maxDiffText = 16 << 20
)

var diffWriters = sync.Pool{New: func() any {
	return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: diffQuality, LGWin: diffWindow})
}}

// storedDiff is diff as the changes table keeps it: compressed when long
// and when that is shorter.
func storedDiff(diff string) string {
	if len(diff) <= compressDiffOver || strings.HasPrefix(diff, compressedDiff) {
		return diff
	}
	var buf bytes.Buffer
	w := diffWriters.Get().(*brotli.Writer)
	w.Reset(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = io.WriteString(w, diff)
	_ = w.Close()
	w.Reset(nil)
	diffWriters.Put(w)
	if len(compressedDiff)+base64.StdEncoding.EncodedLen(buf.Len()) >= len(diff) {
		return diff
	}
	return compressedDiff + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// errDiffTooLarge: a stored diff expands past maxDiffText.
var errDiffTooLarge = errors.New("stored diff larger than allowed")

// readDiff is the diff a changes row stores, as the caller gave it.
func readDiff(stored string) (string, error) {
	rest, ok := strings.CutPrefix(stored, compressedDiff)
	if !ok {
		return stored, nil
	}
	blob, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return "", fmt.Errorf("read a stored diff: %w", err)
	}
	var out bytes.Buffer
	n, err := out.ReadFrom(io.LimitReader(brotli.NewReader(bytes.NewReader(blob)), maxDiffText+1))
	if err != nil {
		return "", fmt.Errorf("read a stored diff: %w", err)
	}
	if n > maxDiffText {
		return "", fmt.Errorf("read a stored diff: %w (over %d bytes)", errDiffTooLarge, maxDiffText)
	}
	return out.String(), nil
}
