package harvest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"tidings/db"
	"tidings/pagetext"
)

// siteRules are a site's ignore rules as one harvest applies them.
type siteRules struct {
	// everyone is what the harvest leaves out of every comparison, and
	// so of the site's feeds: the rules for everyone, and what was
	// learned.
	everyone *pagetext.Noise
	// owners are each person's own rules: a change they leave nothing of
	// is hidden from that person alone (Change.HiddenFor).
	owners map[int64]*pagetext.Noise

	// marked are the people whose selectors are judged (marks), in the
	// order of their first rule.
	marked []int64

	mu sync.Mutex
	// covered are, by page URL and person, the lines of the page's new
	// text that the person's selectors match (pagetext.Options.Mark).
	covered map[string]map[int64]map[string]bool
}

// siteRules reads a site's ignore rules, each within Options.RuleBudget
// for this harvest. A rule this tidings no longer takes (stored by an
// older one, before rules were bounded) is switched off, with the reason
// for the person who gave it; so is one a harvest found too costly
// (noteSpent).
func (h *Harvester) siteRules(ctx context.Context, site db.Site) *siteRules {
	sr := &siteRules{everyone: &pagetext.Noise{}, owners: map[int64]*pagetext.Noise{}, covered: map[string]map[int64]map[string]bool{}}
	rules, err := h.store.IgnoreRules(ctx, site.ID)
	if err != nil {
		h.opts.Logger.Warn("ignore rules not read; the harvest goes on without them", "site", site.URL, "err", err)
		return sr
	}
	for _, r := range rules {
		if r.OffReason != "" {
			continue
		}
		n := sr.everyone
		if r.UserID != 0 {
			if n = sr.owners[r.UserID]; n == nil {
				n = &pagetext.Noise{}
				sr.owners[r.UserID] = n
			}
		}
		var err error
		switch r.Kind {
		case db.IgnoreText:
			var rule pagetext.Rule
			if rule, err = pagetext.ParseRule(r.Pattern); err == nil {
				n.Rules = append(n.Rules, rule)
			}
		case db.IgnoreCSS:
			var sel pagetext.Selector
			if sel, err = pagetext.ParseSelector(r.Pattern); err == nil {
				n.Remove = append(n.Remove, sel)
				if r.UserID != 0 && len(sr.marked) < MaxMarkedPeople && !slices.Contains(sr.marked, r.UserID) {
					sr.marked = append(sr.marked, r.UserID)
				}
				if r.CreatedAt.After(n.Since) {
					n.Since = r.CreatedAt
				}
			}
		case db.IgnoreLearned:
			n.Learn(map[string]bool{r.Pattern: true})
		}
		if err != nil {
			h.switchOff(ctx, site, r, fmt.Sprintf("tidings no longer takes this rule: %v. Remove it, and write it again within the bounds a rule has now.", err))
		}
	}
	sr.everyone.Bound(ctx, h.opts.RuleBudget)
	for _, n := range sr.owners {
		n.Bound(ctx, h.opts.RuleBudget)
	}
	return sr
}

// MaxMarkedPeople bounds the people whose own selectors a harvest judges
// on each page it reads again: each costs one more reading of the page
// (see covered), so a site that thousands follow must not cost thousands.
// Those whose rules came first are judged; the others' text rules still
// apply.
const MaxMarkedPeople = 25

// marks are the selectors of each person who has some, within
// MaxMarkedPeople, for the page reader to say which lines of a page each
// matches.
func (sr *siteRules) marks() map[int64][]pagetext.Selector {
	if sr == nil {
		return nil
	}
	var m map[int64][]pagetext.Selector
	for _, u := range sr.marked {
		if m == nil {
			m = map[int64][]pagetext.Selector{}
		}
		m[u] = sr.owners[u].Remove
	}
	return m
}

// cover keeps what the page reader found each person's selectors match
// in a page's new text.
func (sr *siteRules) cover(url string, lines map[int64]map[string]bool) {
	if sr == nil || len(lines) == 0 {
		return
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	sr.covered[url] = lines
}

// hide marks each change that a person's own rules leave nothing of as
// hidden from them: an updated page whose diff holds only lines their
// rules ignore or their selectors match (with what those replaced). A
// created or deleted page is news whatever its lines.
func (sr *siteRules) hide(changes []db.Change) {
	if sr == nil || len(sr.owners) == 0 {
		return
	}
	owners := slices.Sorted(maps.Keys(sr.owners))
	for i := range changes {
		c := &changes[i]
		if c.Kind != "updated" || c.TextChange != db.TextChanged || c.Diff == "" {
			continue
		}
		var d pagetext.Diff
		if json.Unmarshal([]byte(c.Diff), &d) != nil {
			continue
		}
		sr.mu.Lock()
		covered := sr.covered[c.URL]
		sr.mu.Unlock()
		for _, u := range owners {
			if d.OnlyNoise(sr.owners[u], covered[u]) {
				c.HiddenFor = append(c.HiddenFor, u)
			}
		}
	}
}

// noteSpent switches off the rules that spent their budget in this
// harvest: they would spend it again at every harvest, and the pages'
// lines they were to leave out are what the person now reads.
func (h *Harvester) noteSpent(ctx context.Context, site db.Site, sr *siteRules) {
	if sr == nil {
		return
	}
	spent := map[ruleKey]bool{}
	add := func(owner int64, n *pagetext.Noise) {
		texts, selectors := n.Spent()
		for _, t := range texts {
			spent[ruleKey{owner, db.IgnoreText, t}] = true
		}
		for _, s := range selectors {
			spent[ruleKey{owner, db.IgnoreCSS, s}] = true
		}
	}
	add(0, sr.everyone)
	for u, n := range sr.owners {
		add(u, n)
	}
	if len(spent) == 0 {
		return
	}
	rules, err := h.store.IgnoreRules(ctx, site.ID)
	if err != nil {
		h.opts.Logger.Warn("costly ignore rules not switched off", "site", site.URL, "err", err)
		return
	}
	when := h.opts.Now().UTC().Format("2006-01-02 15:04 MST")
	for _, r := range rules {
		if spent[ruleKey{r.UserID, r.Kind, r.Pattern}] {
			h.switchOff(ctx, site, r, fmt.Sprintf(
				"switched off at the harvest of %s: matching it on this site's pages cost more than one rule may in a harvest (--rule-budget). Write it more simply (fewer and smaller repetitions, or a plain text), then add it again.", when))
		}
	}
}

type ruleKey struct {
	owner         int64
	kind, pattern string
}

func (h *Harvester) switchOff(ctx context.Context, site db.Site, r db.IgnoreRule, reason string) {
	if err := h.store.SwitchOffRule(context.WithoutCancel(ctx), site.ID, r.ID, reason); err != nil {
		h.opts.Logger.Warn("ignore rule not switched off", "site", site.URL, "rule", r.ID, "err", err)
		return
	}
	h.opts.Logger.Info("ignore rule switched off", "site", site.URL, "rule", r.ID, "reason", reason)
}
