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
// db.IgnoreCSS (a CSS selector, for every page read).
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
			return "", &RuleError{fmt.Sprintf("%s is not a pattern tidings can read: %v; mend it, or write it without the slashes to ignore it as plain text.", pattern, err)}
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

// LearnedWidget reports whether a rule is a widget a harvest learned
// by reading a page twice (pagetext.Widgets), not a line that changed on
// many pages at once: the site page says which.
func LearnedWidget(r db.IgnoreRule) bool {
	return r.Kind == db.IgnoreLearned && pagetext.IsWidget(r.Pattern)
}

// Ruler is who changes a site's rules: a person (their own rules, and,
// for an admin, the rules for everyone), or the operator (User nil: the
// CLI, whose rules are for everyone).
type Ruler struct {
	User *db.User
}

// owner is whose a rule is: the person's, or everyone's (0) when the
// operator gives it, or an admin asks.
func (r Ruler) owner(forEveryone bool) (int64, error) {
	switch {
	case r.User == nil:
		return 0, nil
	case !forEveryone:
		return r.User.ID, nil
	case r.User.Admin:
		return 0, nil
	}
	return 0, &RuleError{"Only an admin gives a site rules for everyone; yours change what you read."}
}

// IgnoreRule adds a rule to a site, checked (CheckRule), once, within
// db.MaxIgnoreRules a person. A person's rule changes only what they
// read: their dashboard, all-in-one feed, digests and pushes; a rule for
// everyone (forEveryone, an admin's or the operator's) changes the site's
// harvests, and so its public feeds. A person must follow the site.
func IgnoreRule(ctx context.Context, store *db.DB, by Ruler, siteID int64, kind, pattern string, forEveryone bool, now time.Time) (db.IgnoreRule, error) {
	if err := mayRule(ctx, store, by, siteID); err != nil {
		return db.IgnoreRule{}, err
	}
	owner, err := by.owner(forEveryone)
	if err != nil {
		return db.IgnoreRule{}, err
	}
	pattern, err = CheckRule(kind, pattern)
	if err != nil {
		return db.IgnoreRule{}, err
	}
	r, err := store.AddIgnoreRule(ctx, siteID, owner, kind, pattern, now)
	switch {
	case errors.Is(err, db.ErrAlreadyExists) && owner == 0:
		return db.IgnoreRule{}, &RuleError{"This site already has that rule for everyone."}
	case errors.Is(err, db.ErrAlreadyExists):
		return db.IgnoreRule{}, &RuleError{"You have that rule for this site already."}
	case errors.Is(err, db.ErrTooManyRules) && owner == 0:
		return db.IgnoreRule{}, &RuleError{fmt.Sprintf("This site has %d rules for everyone, the most there may be: remove one first.", db.MaxIgnoreRules)}
	case errors.Is(err, db.ErrTooManyRules):
		return db.IgnoreRule{}, &RuleError{fmt.Sprintf("You have %d rules for this site, the most there may be: remove one first.", db.MaxIgnoreRules)}
	}
	return r, err
}

// DropRule removes one of a site's rules: a person's own, or, for an
// admin or the operator, one for everyone or a learned one (a harvest may
// learn it again when the line changes on many pages at once again). Any
// other rule, another person's included, is db.ErrNotFound. A person
// must follow the site.
func DropRule(ctx context.Context, store *db.DB, by Ruler, siteID, ruleID int64) error {
	if err := mayRule(ctx, store, by, siteID); err != nil {
		return err
	}
	if by.User != nil {
		err := store.DeleteIgnoreRule(ctx, siteID, by.User.ID, ruleID)
		if !errors.Is(err, db.ErrNotFound) || !by.User.Admin {
			return err
		}
	}
	return store.DeleteIgnoreRule(ctx, siteID, 0, ruleID)
}

// ErrNotFollowing: a person changed the rules of a site they do not
// follow.
var ErrNotFollowing = errors.New("only the people who follow a site change its rules")

func mayRule(ctx context.Context, store *db.DB, by Ruler, siteID int64) error {
	if by.User == nil {
		return nil
	}
	ok, err := store.Follows(ctx, by.User.ID, siteID)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFollowing
	}
	return nil
}
