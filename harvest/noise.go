package harvest

import (
	"context"

	"tidings/db"
	"tidings/pagetext"
)

// siteNoise reads a site's ignore rules into what its harvest leaves out
// of every comparison. A rule that no longer reads (stored by an older
// tidings) is skipped: people's rules were checked when given.
func (h *Harvester) siteNoise(ctx context.Context, site db.Site) *pagetext.Noise {
	n := &pagetext.Noise{}
	rules, err := h.store.IgnoreRules(ctx, site.ID)
	if err != nil {
		h.opts.Logger.Warn("ignore rules not read; the harvest goes on without them", "site", site.URL, "err", err)
		return n
	}
	for _, r := range rules {
		switch r.Kind {
		case db.IgnoreText:
			if rule, err := pagetext.ParseRule(r.Pattern); err == nil {
				n.Rules = append(n.Rules, rule)
			}
		case db.IgnoreCSS:
			if sel, err := pagetext.ParseSelector(r.Pattern); err == nil {
				n.Remove = append(n.Remove, sel)
				if r.CreatedAt.After(n.Since) {
					n.Since = r.CreatedAt
				}
			}
		case db.IgnoreLearned:
			n.Learn(map[string]bool{r.Pattern: true})
		}
	}
	return n
}
