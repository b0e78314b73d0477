package web

import (
	"strconv"
	"time"
)

// plural counts things in words: "1 collection", "2 collections".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// relTime says how long ago (or how far ahead) t is from now, the way a
// person would: "3 hours ago", "in 5 minutes". Past a month it gives the
// date, which reads better than "14 months ago".
func relTime(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var span string
	switch {
	case d < time.Minute:
		if future {
			return "in a moment"
		}
		return "just now"
	case d < time.Hour:
		span = plural(int(d/time.Minute), "minute", "minutes")
	case d < 24*time.Hour:
		span = plural(int(d/time.Hour), "hour", "hours")
	case d < 30*24*time.Hour:
		span = plural(int(d/(24*time.Hour)), "day", "days")
	default:
		return "on " + t.UTC().Format("2 Jan 2006")
	}
	if future {
		return "in " + span
	}
	return span + " ago"
}

// timeOf reads the times templates are given: a time.Time or a
// *time.Time, which may be nil.
func timeOf(t any) (time.Time, bool) {
	switch v := t.(type) {
	case time.Time:
		return v, !v.IsZero()
	case *time.Time:
		if v != nil {
			return *v, !v.IsZero()
		}
	}
	return time.Time{}, false
}
