package scpbridge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strings"
)

// ChecksumRule says which reading of the spec a collection's checksum
// matched.
type ChecksumRule string

// Checksum rules.
const (
	// ChecksumNone: the file declares no checksum.
	ChecksumNone ChecksumRule = ""
	// ChecksumWithoutField: the SHA-256 of the decompressed file with the
	// "checksum" member removed from the metadata line.
	ChecksumWithoutField ChecksumRule = "file-without-checksum-field"
	// ChecksumAfterMetadata: the SHA-256 of the decompressed bytes after
	// the metadata line.
	ChecksumAfterMetadata ChecksumRule = "bytes-after-metadata-line"
)

// checksummer verifies a collection's "checksum".
//
// The spec puts the checksum inside the metadata line, that is inside the
// very bytes a checksum "of the file" would cover, so no file can carry a
// checksum of itself. Two readings can be implemented by a generator, and
// both are accepted:
//
//  1. the hash of the whole decompressed file as it would be without the
//     checksum: the metadata line with its "checksum" member (and one
//     adjacent comma) cut out byte for byte, everything else untouched;
//  2. the hash of the decompressed bytes after the metadata line, i.e. of
//     the pages only.
//
// Both hashes are computed in the one streaming pass. Which one matched is
// reported (Reader.Checksum), so a site's convention can be seen; any other
// value, including one that is not "sha256:" and 64 hex digits, is a fatal
// mismatch.
type checksummer struct {
	declared     string
	line         int // the metadata line, for the error
	want         []byte
	withoutField hash.Hash // nil when the member could not be cut out
	afterMeta    hash.Hash
}

// newChecksummer starts both hashes. lead holds the bytes before the
// metadata line (blank lines), raw the metadata line with its terminator;
// leadLost says there were too many of them to keep.
func newChecksummer(declared string, line int, lead []byte, leadLost bool, raw []byte) *checksummer {
	c := &checksummer{declared: declared, line: line, afterMeta: sha256.New()}
	if hexSum, ok := strings.CutPrefix(declared, "sha256:"); ok && len(hexSum) == 64 {
		c.want, _ = hex.DecodeString(hexSum)
	}
	body, term := splitTerminator(raw)
	if cut, ok := withoutChecksum(body); ok && !leadLost {
		c.withoutField = sha256.New()
		c.withoutField.Write(lead)
		c.withoutField.Write(cut)
		c.withoutField.Write(term)
	}
	return c
}

func (c *checksummer) write(b []byte) {
	c.afterMeta.Write(b)
	if c.withoutField != nil {
		c.withoutField.Write(b)
	}
}

func (c *checksummer) verify() (ChecksumRule, *Error) {
	if c.want == nil {
		return ChecksumNone, &Error{Line: c.line, Err: ErrChecksum,
			Msg: fmt.Sprintf("the checksum %q is not \"sha256:\" followed by 64 hex digits", clip(c.declared))}
	}
	if c.withoutField != nil && bytes.Equal(c.withoutField.Sum(nil), c.want) {
		return ChecksumWithoutField, nil
	}
	if bytes.Equal(c.afterMeta.Sum(nil), c.want) {
		return ChecksumAfterMetadata, nil
	}
	return ChecksumNone, &Error{Line: c.line, Err: ErrChecksum,
		Msg: fmt.Sprintf("the checksum %s does not match the file (neither without the checksum field nor after the metadata line)", clip(c.declared))}
}

func splitTerminator(raw []byte) (body, term []byte) {
	n := len(raw)
	if n > 0 && raw[n-1] == '\n' {
		n--
		if n > 0 && raw[n-1] == '\r' {
			n--
		}
	}
	return raw[:n], raw[n:]
}

// withoutChecksum returns the metadata line with the "checksum" member of
// its "collection" object cut out, with the comma that separated it from a
// neighbour, leaving every other byte as it was.
func withoutChecksum(line []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if k != "collection" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, false
		}
		for dec.More() {
			start := dec.InputOffset()
			key, err := dec.Token()
			if err != nil {
				return nil, false
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return nil, false
			}
			if key != "checksum" {
				continue
			}
			return cutMember(line, int(start), int(dec.InputOffset())), true
		}
		return nil, false
	}
	return nil, false
}

// cutMember removes line[start:end], a member from just after the previous
// token to the end of its value. Unless that span begins with the comma
// before it (the member was first), the comma after it goes instead.
func cutMember(line []byte, start, end int) []byte {
	if lead := bytes.TrimLeft(line[start:end], " \t\r\n"); len(lead) == 0 || lead[0] != ',' {
		i := end
		for i < len(line) && strings.IndexByte(" \t\r\n", line[i]) >= 0 {
			i++
		}
		if i < len(line) && line[i] == ',' {
			for i++; i < len(line) && strings.IndexByte(" \t\r\n", line[i]) >= 0; i++ {
			}
			end = i
		}
	}
	out := make([]byte, 0, len(line)-(end-start))
	out = append(out, line[:start]...)
	return append(out, line[end:]...)
}
