package arc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var rateRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*(?:/|per\s+)\s*(\d*)\s*([a-z]+)$`)

var rateUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
}

// ParseCrawlRate reads a crawl_rate hint ("1/s", "10/m", "30 per hour",
// "1/5s") as the least time between two requests.
func ParseCrawlRate(s string) (time.Duration, error) {
	m := rateRE.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return 0, fmt.Errorf("crawl_rate %q is not a rate such as 1/s or 10/m", clip(s, 40))
	}
	n, err := strconv.ParseFloat(m[1], 64)
	unit, ok := rateUnits[m[3]]
	if err != nil || !ok || n <= 0 {
		return 0, fmt.Errorf("crawl_rate %q is not a rate such as 1/s or 10/m", clip(s, 40))
	}
	per := 1.0
	if m[2] != "" {
		if per, err = strconv.ParseFloat(m[2], 64); err != nil || per <= 0 {
			return 0, fmt.Errorf("crawl_rate %q is not a rate such as 1/s or 10/m", clip(s, 40))
		}
	}
	// Beyond a day the hint means "rarely"; a day also keeps the
	// conversion to Duration in range.
	d := per * float64(unit) / n
	if d > float64(24*time.Hour) {
		d = float64(24 * time.Hour)
	}
	return time.Duration(d), nil
}
