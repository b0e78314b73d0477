package arc

import (
	"errors"
	"regexp"
	"strconv"
	"time"
)

var dateTimeRE = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})` +
	`(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?` +
	`[ \t]*(Z|z|[+-]\d{1,2}(?::?\d{2})?)?)?$`)

var errDateTime = errors.New("not a date-time")

func parseDateTime(s string) (time.Time, error) {
	m := dateTimeRE.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, errDateTime
	}
	n := func(i int) int {
		v, _ := strconv.Atoi(m[i])
		return v
	}
	year, month, day := n(1), n(2), n(3)
	hour, minute, sec := n(4), n(5), n(6)
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 60 {
		return time.Time{}, errDateTime
	}
	if sec == 60 {
		// A leap second reads as the last representable instant of that
		// minute rather than spilling into the next.
		sec = 59
	}
	nsec := 0
	if frac := m[7]; frac != "" {
		for len(frac) < 9 {
			frac += "0"
		}
		nsec, _ = strconv.Atoi(frac[:9])
	}
	offset, err := zoneOffset(m[8])
	if err != nil {
		return time.Time{}, err
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), nil
}

// zoneOffset reads Z, +hh, +hhmm or +hh:mm as seconds east of UTC; no zone
// at all is UTC.
func zoneOffset(z string) (int, error) {
	if z == "" || z == "Z" || z == "z" {
		return 0, nil
	}
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	digits := z[1:]
	if len(digits) > 2 && digits[len(digits)-3] == ':' {
		digits = digits[:len(digits)-3] + digits[len(digits)-2:]
	}
	var h, mm int
	switch len(digits) {
	case 1, 2:
		h, _ = strconv.Atoi(digits)
	case 3, 4:
		h, _ = strconv.Atoi(digits[:len(digits)-2])
		mm, _ = strconv.Atoi(digits[len(digits)-2:])
	default:
		return 0, errDateTime
	}
	if h > 23 || mm > 59 {
		return 0, errDateTime
	}
	return sign * (h*3600 + mm*60), nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
