package pagetext

import (
	"context"
	"sync/atomic"
)

// cost is what one rule has spent in one harvest, shared by every copy of
// it (Noise.Clone) and by the pages read at once. Costs are counted in
// units, not measured in time, so that a busy machine does not switch off
// a rule that a quiet one keeps: a selector spends its compounds for every
// element of a page it walks, a text rule one unit per byte of each line
// it reads, a pattern its compiled program's size per byte (what RE2's
// matching costs at most).
type cost struct {
	weight int64
	spent  atomic.Int64
	limit  int64
	over   atomic.Bool
	// done ends a selector's walk of a page with the harvest: a shutdown
	// then waits for no page. (A text rule reads one line at a time, and
	// goes on: a comparison made after the harvest's end must leave out
	// the same lines as before it.)
	done <-chan struct{}
}

// charge takes n units and reports whether the rule may still run.
func (c *cost) charge(n int64) bool {
	if c == nil {
		return true
	}
	if c.off() {
		return false
	}
	if c.spent.Add(n) > c.limit && c.limit > 0 {
		c.over.Store(true)
		return false
	}
	return true
}

// off reports whether the rule spent its budget.
func (c *cost) off() bool {
	return c != nil && c.over.Load()
}

// ended reports whether the harvest the rule is bounded for ended.
func (c *cost) ended() bool {
	if c == nil {
		return false
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// DefaultRuleBudget is what one rule may cost in one harvest of its
// site, in the units of cost: about half a second of one core for the
// costliest pattern a rule may be, and more text than any site serves for
// a plain text or a selector. Each rule has a budget of its own, so that
// one person's rules never use up another's.
const DefaultRuleBudget = 128 << 20

// Bound gives each rule of n budget units (none when budget is 0) for the
// harvest ctx belongs to, and ends their matching when ctx ends. Call it
// before the harvest reads any page.
func (n *Noise) Bound(ctx context.Context, budget int64) {
	if n == nil {
		return
	}
	for _, r := range n.Rules {
		if r.cost != nil {
			r.cost.limit, r.cost.done = budget, ctx.Done()
		}
	}
	for _, s := range n.Remove {
		if s.cost != nil {
			s.cost.limit, s.cost.done = budget, ctx.Done()
		}
	}
}

// Spent returns the rules, as written, that spent their budget in the
// harvest (Bound): texts and patterns, then selectors.
func (n *Noise) Spent() (rules, selectors []string) {
	if n == nil {
		return nil, nil
	}
	for _, r := range n.Rules {
		if r.cost != nil && r.cost.over.Load() {
			rules = append(rules, r.written)
		}
	}
	for _, s := range n.Remove {
		if s.cost != nil && s.cost.over.Load() {
			selectors = append(selectors, s.text)
		}
	}
	return rules, selectors
}
