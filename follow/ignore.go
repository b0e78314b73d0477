package follow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"tidings/db"
	"tidings/pagetext"
)

// RuleError is a rule that cannot be taken, phrased for the person who
// wrote it.
type RuleError struct{ Msg string }

func (e *RuleError) Error() string { return e.Msg }

// Bounds of a rule as written: a text rule shorter than minRuleText
// would leave out most lines of most pages.
const (
	minRuleText = 3
	maxRuleText = 200
)

// CheckRule checks a rule as a person writes it and returns it as it is
// kept: kind db.IgnoreText ("a text" a line contains, "/a pattern/") or
// db.IgnoreCSS (a CSS selector, for watched pages).
func CheckRule(kind, pattern string) (string, error) {
	pattern = strings.TrimSpace(pattern)
	switch {
	case pattern == "":
		return "", &RuleError{"Write the text, the /pattern/ or the CSS selector to ignore."}
	case utf8.RuneCountInString(pattern) > maxRuleText:
		return "", &RuleError{fmt.Sprintf("A rule has at most %d characters.", maxRuleText)}
	}
	switch kind {
	case db.IgnoreText:
		if utf8.RuneCountInString(strings.Trim(pattern, "/")) < minRuleText {
			return "", &RuleError{fmt.Sprintf("A text rule needs %d characters at least: a shorter one would leave out most lines.", minRuleText)}
		}
		if _, err := pagetext.ParseRule(pattern); err != nil {
			return "", &RuleError{fmt.Sprintf("%s is not a pattern tidings can read: %v. Without the slashes it is taken as plain text.", pattern, err)}
		}
	case db.IgnoreCSS:
		if _, err := pagetext.ParseSelector(pattern); err != nil {
			return "", &RuleError{"That is not a CSS selector tidings can read (" + err.Error() + "): write one such as #counter or .webring."}
		}
	default:
		return "", &RuleError{fmt.Sprintf("A rule is a text (%s) or a CSS selector (%s).", db.IgnoreText, db.IgnoreCSS)}
	}
	return pattern, nil
}

// IgnoreRule adds a rule to a site for everyone who follows it (its
// harvests are everyone's): checked (CheckRule), once, within
// db.MaxIgnoreRules. userID, when not 0, must follow the site.
func IgnoreRule(ctx context.Context, store *db.DB, userID, siteID int64, kind, pattern string, now time.Time) (db.IgnoreRule, error) {
	if err := mayRule(ctx, store, userID, siteID); err != nil {
		return db.IgnoreRule{}, err
	}
	pattern, err := CheckRule(kind, pattern)
	if err != nil {
		return db.IgnoreRule{}, err
	}
	r, err := store.AddIgnoreRule(ctx, siteID, kind, pattern, now)
	switch {
	case errors.Is(err, db.ErrAlreadyExists):
		return db.IgnoreRule{}, &RuleError{"This site already has that rule."}
	case errors.Is(err, db.ErrTooManyRules):
		return db.IgnoreRule{}, &RuleError{fmt.Sprintf("A site has at most %d rules: remove one first.", db.MaxIgnoreRules)}
	}
	return r, err
}

// DropRule removes a site's rule, a person's or a learned one (a harvest
// may learn it again when the line changes on many pages at once again).
// userID, when not 0, must follow the site.
func DropRule(ctx context.Context, store *db.DB, userID, siteID, ruleID int64) error {
	if err := mayRule(ctx, store, userID, siteID); err != nil {
		return err
	}
	return store.DeleteIgnoreRule(ctx, siteID, ruleID)
}

// ErrNotFollowing: a person changed the rules of a site they do not
// follow.
var ErrNotFollowing = errors.New("only the people who follow a site change its rules")

func mayRule(ctx context.Context, store *db.DB, userID, siteID int64) error {
	if userID == 0 {
		return nil
	}
	ok, err := store.Follows(ctx, userID, siteID)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFollowing
	}
	return nil
}
