package feeds

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// Status entries tell a feed's readers that its harvests fail, once per
// failing streak, and once more when they work again.

// FailingTitle is the title of the status entry of a collection whose
// harvests fail, such as "Harvests of My Shrine have failed since
// 2 Jan 2026 09:00 UTC".
func FailingTitle(collection string, since time.Time) string {
	return fmt.Sprintf("Harvests of %s have failed since %s", collectionName(collection), humanTime(since))
}

// FailingHTML is the content of that entry: since when, and the last error
// as a sentence for people.
func FailingHTML(since time.Time, lastError string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<p>tidings has not been able to harvest the changes of this feed since %s, so changes made since then may be missing.", timeHTML(since))
	b.WriteString(" This feed will say so when harvests work again.</p>")
	if e := strings.TrimSpace(CleanText(lastError)); e != "" {
		fmt.Fprintf(&b, "<p>The last error: <q>%s</q></p>", html.EscapeString(e))
	}
	return b.String()
}

// RecoveredTitle is the title of the status entry of a collection whose
// harvests work again after failing: "Harvests of My Shrine work again".
func RecoveredTitle(collection string) string {
	return fmt.Sprintf("Harvests of %s work again", collectionName(collection))
}

// RecoveredHTML is the content of that entry: how long harvests failed.
func RecoveredHTML(since, until time.Time) string {
	return fmt.Sprintf("<p>Harvests failed from %s to %s. The changes made meanwhile that the site still lists were harvested when it recovered.</p>",
		timeHTML(since), timeHTML(until))
}

func collectionName(collection string) string {
	if name := strings.TrimSpace(CleanText(collection)); name != "" {
		return name
	}
	return "this collection"
}

func humanTime(t time.Time) string {
	return t.UTC().Format("2 Jan 2006 15:04 UTC")
}

func timeHTML(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf(`<time datetime="%s">%s</time>`, t.Format(time.RFC3339), humanTime(t))
}
