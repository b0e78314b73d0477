// Package hints reads what a site says about itself outside any one
// protocol's documents, for discovery and for every parser alike: the
// Sitemap lines of robots.txt, an HTML page's <link rel> hints and
// <title>, HTTP Link headers, and W3C datetimes, in which every protocol
// dates its changes. Bytes in, values out: it performs no I/O beyond the
// io.Reader it is given.
package hints

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// errDatetime is the cause behind every ParseW3CDatetime failure; the
// caller's message names the value, so the cause stays short.
var errDatetime = errors.New("not a W3C datetime")

// ParseW3CDatetime parses a W3C Datetime (https://www.w3.org/TR/NOTE-datetime)
// in any of its profiles: YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mmTZD,
// YYYY-MM-DDThh:mm:ssTZD and YYYY-MM-DDThh:mm:ss.sTZD with any number of
// fractional digits. TZD is "Z" or ±hh:mm.
//
// Publishers get a little leeway: surrounding whitespace, a lowercase "t" or
// "z", a space instead of "T", ±hhmm offsets and a missing TZD (read as UTC)
// are accepted. A value without a time means midnight UTC on its first day.
// The result is always in UTC.
func ParseW3CDatetime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := parseW3C(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("hints: %q: %w", s, err)
	}
	return t, nil
}

// w3cScanner walks a datetime string left to right; each method consumes
// one field or reports that the field is not there.
type w3cScanner struct {
	s   string
	pos int
}

func (sc *w3cScanner) done() bool { return sc.pos == len(sc.s) }

// peek reports whether the next byte is c, without consuming it.
func (sc *w3cScanner) peek(c byte) bool { return !sc.done() && sc.s[sc.pos] == c }

// digits consumes exactly n ASCII digits and returns their value.
func (sc *w3cScanner) digits(n int) (int, bool) {
	if len(sc.s)-sc.pos < n {
		return 0, false
	}
	v := 0
	for _, c := range []byte(sc.s[sc.pos : sc.pos+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	sc.pos += n
	return v, true
}

// accept consumes the next byte if it is one of set.
func (sc *w3cScanner) accept(set string) bool {
	if sc.done() || strings.IndexByte(set, sc.s[sc.pos]) < 0 {
		return false
	}
	sc.pos++
	return true
}

// field consumes a separator followed by a two-digit number in [lo, hi].
func (sc *w3cScanner) field(sep string, lo, hi int) (int, error) {
	if !sc.accept(sep) {
		return 0, errDatetime
	}
	v, ok := sc.digits(2)
	if !ok || v < lo || v > hi {
		return 0, errDatetime
	}
	return v, nil
}

func parseW3C(s string) (time.Time, error) {
	sc := &w3cScanner{s: s}
	year, ok := sc.digits(4)
	if !ok {
		return time.Time{}, errDatetime
	}
	month, day := 1, 1
	var err error
	if !sc.done() {
		if month, err = sc.field("-", 1, 12); err != nil {
			return time.Time{}, err
		}
	}
	if !sc.done() {
		if day, err = sc.field("-", 1, 31); err != nil {
			return time.Time{}, err
		}
	}
	if !validDay(year, month, day) {
		return time.Time{}, errDatetime
	}
	date := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if sc.done() {
		return date, nil
	}
	return parseW3CTime(sc, date)
}

// parseW3CTime reads "Thh:mm[:ss[.s+]][TZD]" after a full date.
func parseW3CTime(sc *w3cScanner, date time.Time) (time.Time, error) {
	hour, err := sc.field("Tt ", 0, 23)
	if err != nil {
		return time.Time{}, err
	}
	minute, err := sc.field(":", 0, 59)
	if err != nil {
		return time.Time{}, err
	}
	var sec, nsec int
	if sc.peek(':') {
		if sec, err = sc.field(":", 0, 59); err != nil {
			return time.Time{}, err
		}
		if sc.accept(".") {
			if nsec, err = fraction(sc); err != nil {
				return time.Time{}, err
			}
		}
	}
	offset, err := zone(sc)
	if err != nil {
		return time.Time{}, err
	}
	if !sc.done() {
		return time.Time{}, errDatetime
	}
	t := date.Add(time.Duration(hour)*time.Hour +
		time.Duration(minute)*time.Minute +
		time.Duration(sec)*time.Second +
		time.Duration(nsec) - time.Duration(offset)*time.Second)
	return t.UTC(), nil
}

// fraction reads one or more digits after the decimal point; digits beyond
// nanoseconds are dropped rather than rounded, as time.Time cannot hold them.
func fraction(sc *w3cScanner) (int, error) {
	start := sc.pos
	nsec, scale := 0, 100_000_000
	for !sc.done() && sc.s[sc.pos] >= '0' && sc.s[sc.pos] <= '9' {
		nsec += int(sc.s[sc.pos]-'0') * scale
		scale /= 10
		sc.pos++
	}
	if sc.pos == start {
		return 0, errDatetime
	}
	return nsec, nil
}

// zone reads the TZD and returns its offset east of UTC in seconds. An
// absent TZD is UTC.
func zone(sc *w3cScanner) (int, error) {
	if sc.done() || sc.accept("Zz") {
		return 0, nil
	}
	sign := 1
	switch {
	case sc.accept("+"):
	case sc.accept("-"):
		sign = -1
	default:
		return 0, errDatetime
	}
	hh, ok := sc.digits(2)
	if !ok || hh > 23 {
		return 0, errDatetime
	}
	sc.accept(":")
	mm, ok := sc.digits(2)
	if !ok || mm > 59 {
		return 0, errDatetime
	}
	return sign * (hh*3600 + mm*60), nil
}

// validDay reports whether day exists in that month of that year.
func validDay(year, month, day int) bool {
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	return t.Day() == day
}
