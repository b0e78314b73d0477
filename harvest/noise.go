package harvest

import (
	"context"
	"fmt"

	"tidings/db"
	"tidings/pagetext"
)

// siteNoise reads a site's ignore rules into what its harvest leaves out
// of every comparison, each rule within Options.RuleBudget for this
// harvest. A rule this tidings no longer takes (stored by an older one,
// before rules were bounded) is switched off, with the reason for the
// person who gave it; so is one a harvest found too costly (noteSpent).
func (h *Harvester) siteNoise(ctx context.Context, site db.Site) *pagetext.Noise {
	n := &pagetext.Noise{}
	rules, err := h.store.IgnoreRules(ctx, site.ID)
	if err != nil {
		h.opts.Logger.Warn("ignore rules not read; the harvest goes on without them", "site", site.URL, "err", err)
		return n
	}
	for _, r := range rules {
		if r.OffReason != "" {
			continue
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
	n.Bound(ctx, h.opts.RuleBudget)
	return n
}

// noteSpent switches off the rules that spent their budget in this
// harvest: they would spend it again at every harvest, and the pages'
// lines they were to leave out are what the person now reads.
func (h *Harvester) noteSpent(ctx context.Context, site db.Site, n *pagetext.Noise) {
	texts, selectors := n.Spent()
	if len(texts)+len(selectors) == 0 {
		return
	}
	rules, err := h.store.IgnoreRules(ctx, site.ID)
	if err != nil {
		h.opts.Logger.Warn("costly ignore rules not switched off", "site", site.URL, "err", err)
		return
	}
	spent := map[[2]string]bool{}
	for _, t := range texts {
		spent[[2]string{db.IgnoreText, t}] = true
	}
	for _, s := range selectors {
		spent[[2]string{db.IgnoreCSS, s}] = true
	}
	when := h.opts.Now().UTC().Format("2006-01-02 15:04 MST")
	for _, r := range rules {
		if spent[[2]string{r.Kind, r.Pattern}] {
			h.switchOff(ctx, site, r, fmt.Sprintf(
				"switched off at the harvest of %s: matching it on this site's pages cost more than one rule may in a harvest (--rule-budget). Write it more simply (fewer and smaller repetitions, or a plain text), then add it again.", when))
		}
	}
}

func (h *Harvester) switchOff(ctx context.Context, site db.Site, r db.IgnoreRule, reason string) {
	if err := h.store.SwitchOffRule(context.WithoutCancel(ctx), site.ID, r.ID, reason); err != nil {
		h.opts.Logger.Warn("ignore rule not switched off", "site", site.URL, "rule", r.ID, "err", err)
		return
	}
	h.opts.Logger.Info("ignore rule switched off", "site", site.URL, "rule", r.ID, "reason", reason)
}
