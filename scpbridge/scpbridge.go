// Package scpbridge reads the Site Content Protocol (SCP v0.1): the scp:
// extension of sitemap.xml that advertises a site's sections, snapshots and
// deltas, and the .scp.gz / .scp.zst collections themselves (JSON Lines, one
// page per line), decoded as a stream under size, ratio and line caps.
//
// It does no I/O beyond the io.Reader it is given; the harvester fetches.
package scpbridge

import (
	"errors"
	"fmt"
	"time"
)

// Namespace is the XML namespace of the SCP sitemap extension.
const Namespace = "https://scp-protocol.org/schemas/sitemap/1.0"

// File types.
const (
	TypeSnapshot = "snapshot"
	TypeDelta    = "delta"
)

// Meta is a collection's optional first line, {"collection": {...}}.
type Meta struct {
	ID        string
	Section   string
	Type      string // TypeSnapshot or TypeDelta
	Generated time.Time
	Since     *time.Time // required for deltas
	Checksum  string     // "sha256:<hex>", or ""
	Version   string
}

// Page is one page line of a collection.
type Page struct {
	Line        int // the line it was read from, 1-based
	URL         string
	Title       string
	Description string
	Author      string
	Published   *time.Time
	Modified    time.Time
	Language    string // "" when absent or not a language tag
	Content     []Block
	// Hash is a hex SHA-256 of the page's line without the white space
	// between tokens: any change to the page record changes it, a page
	// republished unchanged (however indented) hashes the same.
	Hash string
}

// Block is one content block. Only what tidings uses is decoded; Raw keeps
// the block as the site wrote it.
type Block struct {
	Type  string
	Level int    // headings: 1–6, clamped
	Text  string // text, heading, quote; the code of a code block
	URL   string // link, image
	Raw   []byte
}

// Limits are the caps enforced while a collection is decoded. A zero field
// takes its DefaultLimits value.
type Limits struct {
	MaxCompressed   int64 // bytes read from the input
	MaxDecompressed int64 // bytes after decompression
	MaxLine         int64 // bytes in one line (one page)
	MaxRatio        int64 // decompressed bytes per compressed byte
}

// Defaults, sized for a small VPS. The spec's own maxima (50 GB, 500 GB,
// 100 MB per page) are ceilings, not sensible settings.
const (
	DefaultMaxCompressed   = 512 << 20
	DefaultMaxDecompressed = 1 << 30
	DefaultMaxLine         = 16 << 20
	DefaultMaxRatio        = 100 // the spec's compression-bomb limit
)

// DefaultLimits returns the default caps.
func DefaultLimits() Limits {
	return Limits{DefaultMaxCompressed, DefaultMaxDecompressed, DefaultMaxLine, DefaultMaxRatio}
}

// WithDefaults returns l with each zero or negative field set to its
// DefaultLimits value: the one place the defaults are applied, for the
// Reader and for callers that check sizes before reading.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxCompressed <= 0 {
		l.MaxCompressed = d.MaxCompressed
	}
	if l.MaxDecompressed <= 0 {
		l.MaxDecompressed = d.MaxDecompressed
	}
	if l.MaxLine <= 0 {
		l.MaxLine = d.MaxLine
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = d.MaxRatio
	}
	return l
}

// Sentinel causes of a fatal *Error, for errors.Is.
var (
	ErrFormat          = errors.New("not a gzip or zstd file")
	ErrDecompress      = errors.New("decompression failed")
	ErrCompressedSize  = errors.New("compressed size over the limit")
	ErrSize            = errors.New("decompressed size over the limit")
	ErrRatio           = errors.New("decompression ratio over the limit")
	ErrLineTooLong     = errors.New("line over the limit")
	ErrJSON            = errors.New("invalid JSON")
	ErrMissingField    = errors.New("missing or invalid required field")
	ErrMeta            = errors.New("invalid collection metadata")
	ErrChecksum        = errors.New("checksum mismatch")
	ErrUnexpectedInput = errors.New("read failed")
)

// Error is a fatal problem: the whole file is to be rejected. Line is the
// line being read when it happened (0 before the first).
type Error struct {
	Line int
	Msg  string
	Err  error // one of the sentinels above, possibly wrapping a cause
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Warning is a non-fatal problem: a block or a page was skipped, or a value
// adjusted.
type Warning struct {
	Line int
	Msg  string
}

func (w Warning) String() string { return fmt.Sprintf("line %d: %s", w.Line, w.Msg) }
