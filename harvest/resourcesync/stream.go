package resourcesync

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"tidings/fetch"
	"tidings/harvest"
	"tidings/rsync"
)

// streamer is a host that reads a document as it arrives: a collection's
// harvest (*harvest.CollectionRun).
type streamer interface {
	StreamKnown(ctx context.Context, role, url string, o fetch.StreamOptions) (*fetch.Stream, string, error)
	MaxBody() int64
	Discard()
}

// streamEach reads a change list that was never read before as it
// arrives, handing its entries to each: the first harvest of a list of
// 50,000 entries (9.5 MB) neither holds the list whole nor spools it to a
// file and back. Its digest is taken of the bytes as they are parsed, for
// the next harvest, which fetches the list whole: a list served again
// unchanged is then told by its digest alone, without a parse.
func (r docs) streamEach(ctx context.Context, s streamer, role, url string, each func(*rsync.Entry)) (*rsync.Document, error) {
	st, _, err := s.StreamKnown(ctx, role, url, fetch.StreamOptions{})
	if err != nil {
		return nil, err
	}
	defer st.Body.Close()
	sum := sha256.New()
	body, err := inflate(st.Body)
	if err != nil {
		return nil, &harvest.Problem{Msg: fmt.Sprintf("the %s %s %v", role, url, err), Err: err}
	}
	capped := &capReader{r: body, left: s.MaxBody(), max: s.MaxBody(), sum: sum}
	listed := 0
	d, err := rsync.ParseEach(capped, url, func(e *rsync.Entry) {
		listed++
		each(e)
	})
	var rest error
	if err == nil {
		// The digest is of the whole document, past its root's end too.
		_, rest = io.Copy(io.Discard, capped)
	}
	if err != nil || rest != nil {
		// A list is taken whole or not at all, as one read whole is: what
		// it gave before it failed is read again next time.
		s.Discard()
	}
	var big *tooBig
	switch {
	case errors.As(err, &big) || errors.As(rest, &big):
		return nil, &harvest.Problem{Msg: fmt.Sprintf("the %s %s is larger than the limit of %s (--max-body)", role, url, fetch.SizeString(big.max)), Err: big}
	case err != nil:
		return nil, parseError(role, err)
	case rest != nil:
		return nil, &harvest.Problem{Msg: fmt.Sprintf("the %s %s could not be read completely: %v", role, url, rest), Err: rest}
	}
	r.note(ctx, d, listed)
	resp := &fetch.Response{URL: st.URL, ETag: st.ETag, LastModified: st.LastModified, ContentType: st.ContentType}
	digest := hex.EncodeToString(sum.Sum(nil))
	if d.IsIndex() {
		r.keep(url, resp, d, digest)
	} else {
		r.keepChangeList(url, resp, digest)
	}
	return d, nil
}

// inflate undoes gzip, as the client's whole reads do: a .xml.gz list,
// whether or not its answer says Content-Encoding: gzip, compressed once
// or twice.
func inflate(r io.Reader) (io.Reader, error) {
	for range 2 {
		br := bufio.NewReader(r)
		magic, _ := br.Peek(2)
		r = br
		if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("is a broken gzip file: %v", err)
		}
		r = zr
	}
	return r, nil
}

// capReader passes at most max bytes of r, once decompressed, into sum
// and the parser; one more is an error.
type capReader struct {
	r         io.Reader
	left, max int64
	sum       hash.Hash
}

type tooBig struct{ max int64 }

func (e *tooBig) Error() string { return fmt.Sprintf("larger than %d bytes", e.max) }

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, &tooBig{c.max}
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, &tooBig{c.max}
	}
	c.sum.Write(p[:n])
	return n, err
}
