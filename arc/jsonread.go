package arc

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// The JSON reader stops with one of these; parseJSON turns them into the
// *Error people see.
var (
	errTruncated = errors.New("arc: the JSON document ends too early")
	errSyntax    = errors.New("arc: invalid JSON")
)

// maxJSONDepth is encoding/json's nesting limit, counted from each
// top-level value and each page as its Decoder did, so that every document
// accepted before is accepted still.
const maxJSONDepth = 10000

// jsonReader walks a JSON document in place. Values Parse does not read
// are checked and stepped over without being built, so that an unknown key
// holding millions of items costs a scan and no memory; the values it
// keeps are scalars, and objects and lists only as the kind they are.
type jsonReader struct {
	data  []byte
	off   int
	depth int
	colon bool // a key was read: its colon comes before the value
}

// compound stands for an object or a list that was checked but not built:
// the rules only ever name its kind.
type compound byte

const (
	objectValue compound = '{'
	listValue   compound = '['
)

func (r *jsonReader) ws() {
	for r.off < len(r.data) {
		switch r.data[r.off] {
		case ' ', '\t', '\r', '\n':
			r.off++
		default:
			return
		}
	}
}

// next is the first byte of the value at hand.
func (r *jsonReader) next() (byte, error) {
	r.ws()
	if r.colon {
		r.colon = false
		if r.off >= len(r.data) {
			return 0, errTruncated
		}
		if r.data[r.off] != ':' {
			return 0, errSyntax
		}
		r.off++
		r.ws()
	}
	if r.off >= len(r.data) {
		return 0, errTruncated
	}
	return r.data[r.off], nil
}

// container reads an object or a list (open is '{' or '['), calling f for
// each member, which must read or skip the member's value. An object's
// key is given raw when it has no escapes.
func (r *jsonReader) container(open byte, f func(key []byte) error) error {
	if r.depth++; r.depth > maxJSONDepth {
		return errSyntax
	}
	closer := byte(']')
	if open == '{' {
		closer = '}'
	}
	r.off++
	r.ws()
	if r.off < len(r.data) && r.data[r.off] == closer {
		r.off++
		r.depth--
		return nil
	}
	for {
		var key []byte
		if open == '{' {
			r.ws()
			if r.off >= len(r.data) {
				return errTruncated
			}
			if r.data[r.off] != '"' {
				return errSyntax
			}
			var err error
			if key, err = r.key(); err != nil {
				return err
			}
			r.colon = true
		}
		if err := f(key); err != nil {
			return err
		}
		r.ws()
		if r.off >= len(r.data) {
			return errTruncated
		}
		switch r.data[r.off] {
		case ',':
			r.off++
		case closer:
			r.off++
			r.depth--
			return nil
		default:
			return errSyntax
		}
	}
}

func (r *jsonReader) key() ([]byte, error) {
	start := r.off
	escaped, err := r.scanString()
	if err != nil {
		return nil, err
	}
	if !escaped {
		return r.data[start+1 : r.off-1], nil
	}
	var s string
	if json.Unmarshal(r.data[start:r.off], &s) != nil {
		return nil, errSyntax
	}
	return []byte(s), nil
}

// skip checks the value at hand and steps over it.
func (r *jsonReader) skip() error {
	c, err := r.next()
	if err != nil {
		return err
	}
	if c == '{' || c == '[' {
		return r.container(c, func([]byte) error { return r.skip() })
	}
	_, err = r.scanScalar()
	return err
}

// value reads the value at hand: a scalar as encoding/json gives it (with
// UseNumber), an object or a list as its kind only.
func (r *jsonReader) value() (any, error) {
	c, err := r.next()
	if err != nil {
		return nil, err
	}
	if c == '{' || c == '[' {
		return compound(c), r.skip()
	}
	start := r.off
	escaped, err := r.scanScalar()
	if err != nil {
		return nil, err
	}
	raw := r.data[start:r.off]
	switch c {
	case '"':
		if body := raw[1 : len(raw)-1]; !escaped && utf8.Valid(body) {
			return string(body), nil
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, errSyntax
		}
		return s, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return json.Number(raw), nil
}

// record reads an object keeping only the fields in names, each read by
// read; a value that is not an object is read as value reads it.
func (r *jsonReader) record(names []string, read func(name string) (any, error)) (any, error) {
	c, err := r.next()
	if err != nil {
		return nil, err
	}
	if c != '{' {
		return r.value()
	}
	m := map[string]any{}
	err = r.container('{', func(key []byte) error {
		for _, name := range names {
			if string(key) == name {
				v, err := read(name)
				m[name] = v
				return err
			}
		}
		return r.skip()
	})
	return m, err
}

// scanScalar steps over a string, number, true, false or null, telling
// whether a string has escapes.
func (r *jsonReader) scanScalar() (escaped bool, err error) {
	switch r.data[r.off] {
	case '"':
		return r.scanString()
	case 't':
		return false, r.literal("true")
	case 'f':
		return false, r.literal("false")
	case 'n':
		return false, r.literal("null")
	}
	return false, r.scanNumber()
}

func (r *jsonReader) literal(lit string) error {
	for i := 0; i < len(lit); i++ {
		if r.off >= len(r.data) {
			return errTruncated
		}
		if r.data[r.off] != lit[i] {
			return errSyntax
		}
		r.off++
	}
	return nil
}

func (r *jsonReader) scanString() (escaped bool, err error) {
	d := r.data
	for i := r.off + 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			r.off = i + 1
			return escaped, nil
		case c < 0x20:
			return false, errSyntax
		case c == '\\':
			escaped = true
			if i++; i >= len(d) {
				return false, errTruncated
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for j := 0; j < 4; j++ {
					if i++; i >= len(d) {
						return false, errTruncated
					}
					if !isHex(d[i]) {
						return false, errSyntax
					}
				}
			default:
				return false, errSyntax
			}
		}
	}
	return false, errTruncated
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber steps over the longest number the grammar allows here, as
// encoding/json's scanner does: what follows is the next token's problem.
func (r *jsonReader) scanNumber() error {
	d, i := r.data, r.off
	digits := func() error {
		if i >= len(d) {
			return errTruncated
		}
		if !isDigit(d[i]) {
			return errSyntax
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
		return nil
	}
	if d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else if err := digits(); err != nil {
		return err
	}
	if i < len(d) && d[i] == '.' {
		i++
		if err := digits(); err != nil {
			return err
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		if i++; i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if err := digits(); err != nil {
			return err
		}
	}
	r.off = i
	return nil
}
