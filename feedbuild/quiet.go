package feedbuild

import (
	"fmt"
	"time"
)

// QuietAfter is how long a site must have been silent for its next change
// to come first: a site that changes once in months says more when it
// does than one that changes daily.
const QuietAfter = 30 * 24 * time.Hour

// QuietReason says why a change made at at comes first, or "" when its
// site is not a quiet one: last is when the site changed before it (ok
// false when tidings knows of no change before it), followed when tidings
// began following the site.
func QuietReason(at, last time.Time, ok bool, followed time.Time) string {
	if ok {
		if gap := at.Sub(last); gap >= QuietAfter {
			return "First change in " + span(gap)
		}
		return ""
	}
	if gap := at.Sub(followed); !followed.IsZero() && gap >= QuietAfter {
		return "First change since tidings began following it, " + span(gap) + " ago"
	}
	return ""
}

// span says a long time the way a person would: weeks, months, years.
func span(d time.Duration) string {
	days := int(d.Hours() / 24)
	switch {
	case days < 8*7:
		return count(days/7, "week")
	case days < 2*365:
		return count(days/30, "month")
	}
	return count(days/365, "year")
}

func count(n int, unit string) string {
	if n == 1 {
		return "a " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
