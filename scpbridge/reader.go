package scpbridge

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
)

// Options configure a Reader.
type Options struct {
	Limits
	// SitemapURL, when set, confines pages to the sitemap's host: a page
	// elsewhere is skipped with a warning.
	SitemapURL string
}

// Stats tell how much of a file was read.
type Stats struct {
	Format       string // "gzip", "zstd", "plain", or layers such as "gzip+zstd"
	Compressed   int64  // bytes read from the input
	Decompressed int64
	Lines        int
	Pages        int // pages returned
}

// maxKeptWarnings bounds the warnings a Reader keeps; WarningCount counts
// them all.
const maxKeptWarnings = 100

// maxLead bounds the blank bytes before the metadata line that are kept for
// the checksum.
const maxLead = 64 << 10

// Reader reads one collection file, a page at a time, never holding more
// than one line. Its zero value is not usable: see NewReader.
type Reader struct {
	opts  Options
	src   io.Reader
	in    *inCounter
	out   *outCounter
	br    *bufio.Reader
	close []func()
	fmt   string

	started  bool
	line     int
	content  bool // a non-blank line has been read
	lead     []byte
	leadLost bool
	long     []byte
	meta     *Meta
	p        lineParser
	sum      *checksummer
	rule     ChecksumRule
	pages    int
	err      error // sticky: io.EOF or the fatal *Error

	warnings []Warning
	nwarn    int
}

// NewReader returns a Reader of the collection file in r: gzip or zstd
// (told by its magic bytes, not by any name), or uncompressed JSON Lines.
func NewReader(r io.Reader, o Options) *Reader {
	o.Limits = o.Limits.WithDefaults()
	rd := &Reader{opts: o, src: r}
	if o.SitemapURL != "" {
		if u, err := url.Parse(o.SitemapURL); err == nil && u.Host != "" {
			rd.p.site = u
		}
	}
	rd.p.warn = rd.addWarning
	return rd
}

func (r *Reader) addWarning(w Warning) {
	r.nwarn++
	if len(r.warnings) < maxKeptWarnings {
		r.warnings = append(r.warnings, w)
	}
}

// Next returns the next valid page. It returns io.EOF after the last one,
// once the whole file has been read and its checksum verified, and a
// *Error when the file is to be rejected: after either, it returns the same
// again. Pages already returned from a file that then fails must be
// discarded by the caller.
func (r *Reader) Next() (*Page, error) {
	if r.err != nil {
		return nil, r.err
	}
	if !r.started {
		r.started = true
		if err := r.start(); err != nil {
			return nil, r.fail(err)
		}
	}
	for {
		raw, err := r.readLine()
		if err == io.EOF {
			return nil, r.finish()
		}
		if err != nil {
			return nil, r.fail(err)
		}
		r.line++
		if r.sum != nil {
			r.sum.write(raw)
		}
		line := bytes.TrimSpace(raw)
		if len(line) == 0 {
			if !r.content && !r.leadLost {
				r.keepLead(raw)
			}
			continue
		}
		pg, perr := r.parse(line, raw)
		if perr != nil {
			return nil, r.fail(perr)
		}
		if pg != nil {
			r.pages++
			return pg, nil
		}
	}
}

func (r *Reader) keepLead(raw []byte) {
	if len(r.lead)+len(raw) > maxLead {
		r.lead, r.leadLost = nil, true
		return
	}
	r.lead = append(r.lead, raw...)
}

// parse handles one non-blank line: the metadata line, or a page (nil when
// skipped with a warning).
func (r *Reader) parse(line, raw []byte) (*Page, error) {
	lj, err := parseLine(line)
	if err != nil {
		return nil, &Error{Line: r.line, Msg: err.Error(), Err: ErrJSON}
	}
	first := !r.content
	r.content = true
	if len(lj.Collection) > 0 && string(lj.Collection) != "null" {
		if !first {
			return nil, &Error{Line: r.line, Msg: "collection metadata may only be on the first line", Err: ErrMeta}
		}
		m, merr := r.p.meta(r.line, lj.Collection)
		if merr != nil {
			return nil, merr
		}
		r.meta = m
		if m.Checksum != "" {
			r.sum = newChecksummer(m.Checksum, r.line, r.lead, r.leadLost, raw)
		}
		r.lead = nil
		return nil, nil
	}
	pg, perr := r.p.page(r.line, lj, line)
	if perr != nil {
		return nil, perr
	}
	return pg, nil
}

// readLine returns the next line with its terminator; the slice is valid
// until the next call. A line over the cap fails as soon as the cap is
// crossed, without reading the rest of it.
func (r *Reader) readLine() ([]byte, error) {
	if cap(r.long) > 1<<20 {
		// A long line is rare; its buffer is not kept for the rest of the file.
		r.long = nil
	}
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if int64(len(r.long)) > r.opts.MaxLine {
				break
			}
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
		}
		b = r.long
	}
	if body, _ := splitTerminator(b); int64(len(body)) > r.opts.MaxLine {
		return nil, &Error{Line: r.line + 1, Err: ErrLineTooLong,
			Msg: fmt.Sprintf("the line is longer than the limit of %s", sizeString(r.opts.MaxLine))}
	}
	if err == io.EOF && len(b) > 0 {
		return b, nil
	}
	return b, err
}

func (r *Reader) finish() error {
	if r.sum != nil {
		rule, err := r.sum.verify()
		if err != nil {
			return r.fail(err)
		}
		r.rule = rule
	}
	r.err = io.EOF
	r.release()
	return io.EOF
}

// fail makes err the Reader's sticky fatal error, as an *Error.
func (r *Reader) fail(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		e = r.explain(err)
	}
	r.err = e
	r.release()
	return e
}

// explain phrases a failure of reading or decompressing.
func (r *Reader) explain(err error) *Error {
	n := r.line + 1
	switch {
	case errors.Is(err, ErrCompressedSize):
		return &Error{Line: n, Err: ErrCompressedSize, Msg: fmt.Sprintf("the file is larger than the limit of %s", sizeString(r.opts.MaxCompressed))}
	case errors.Is(err, ErrSize):
		return &Error{Line: n, Err: ErrSize, Msg: fmt.Sprintf("the file decompresses to more than the limit of %s", sizeString(r.opts.MaxDecompressed))}
	case errors.Is(err, ErrRatio):
		return &Error{Line: n, Err: ErrRatio, Msg: fmt.Sprintf("the file decompresses to more than %d times its compressed size (%s from %s): a compression bomb",
			r.opts.MaxRatio, sizeString(r.out.n), sizeString(r.in.n.Load()))}
	case r.in != nil && r.in.err != nil:
		return &Error{Line: n, Err: fmt.Errorf("%w: %w", ErrUnexpectedInput, r.in.err), Msg: "the download broke off: " + r.in.err.Error()}
	case errors.Is(err, ErrFormat):
		return &Error{Line: n, Err: ErrFormat, Msg: "the file is neither gzip nor zstd (by its first bytes)"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Line: n, Err: fmt.Errorf("%w: %w", ErrDecompress, err), Msg: "the file ends in the middle of its compressed data"}
	}
	return &Error{Line: n, Err: fmt.Errorf("%w: %w", ErrDecompress, err), Msg: "the file could not be decompressed: " + err.Error()}
}

// Meta returns the file's metadata line, or nil when it has none (or none
// was read yet).
func (r *Reader) Meta() *Meta { return r.meta }

// Warnings returns the first warnings (up to 100); WarningCount counts all.
func (r *Reader) Warnings() []Warning { return r.warnings }

// WarningCount counts the warnings.
func (r *Reader) WarningCount() int { return r.nwarn }

// Checksum tells which rule the checksum matched, once Next returned
// io.EOF; ChecksumNone when the file declares none.
func (r *Reader) Checksum() ChecksumRule { return r.rule }

// Stats tells how much was read so far.
func (r *Reader) Stats() Stats {
	s := Stats{Format: r.fmt, Lines: r.line, Pages: r.pages}
	if r.in != nil {
		s.Compressed = r.in.n.Load()
	}
	if r.out != nil {
		s.Decompressed = r.out.n
	}
	return s
}

// Close releases the decompressor. Reading to the end or to a fatal error
// releases it too; Close is for a caller that stops early.
func (r *Reader) Close() error {
	r.release()
	if r.err == nil {
		r.err = errors.New("scpbridge: read after Close")
	}
	return nil
}

func (r *Reader) release() {
	for _, c := range r.close {
		c()
	}
	r.close = nil
}
