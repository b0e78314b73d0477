package pagetext

import "golang.org/x/net/html"

// removeMatching takes out of doc every element a selector matches, with
// what it holds. A selector whose rule has spent its budget is left out
// (cost), and so is every one once its harvest is over: the caller then
// drops the text (see harvest's readText).
func removeMatching(doc *html.Node, remove []Selector) {
	var gone []*html.Node
	for _, s := range remove {
		if len(s.complex) == 0 || s.cost.off() {
			continue
		}
		m := matcher{sel: s}
		m.walk(doc, nil)
		if !m.stopped {
			gone = append(gone, m.found...)
		}
	}
	for _, n := range gone {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// prefixes are, for one element and each selector of a group, which prefixes
// of it (bit i: compounds 0..i) the element matches, and which some
// ancestor or the element itself matches.
type prefixes struct {
	self, anc [MaxSelectorGroup]uint8
}

// matcher walks a page once for one Selector, in document order, so that
// an element's parent and earlier siblings are known before it.
type matcher struct {
	sel     Selector
	found   []*html.Node
	walked  int64
	stopped bool
}

// chargeEvery is how many elements are walked between charges to the
// rule's budget (and looks at the harvest's end).
const chargeEvery = 256

func (m *matcher) walk(n *html.Node, parent *prefixes) {
	var prev, sib prefixes // the previous element sibling's, and any earlier one's
	for c := n.FirstChild; c != nil && !m.stopped; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		m.walked++
		if m.walked%chargeEvery == 0 && (m.sel.cost.ended() || !m.sel.cost.charge(chargeEvery*m.sel.cost.weight)) {
			m.stopped = true
			return
		}
		cur := m.mark(c, parent, &prev, &sib)
		m.walk(c, &cur)
		for i := range m.sel.complex {
			sib.self[i] |= cur.self[i]
		}
		prev = cur
	}
}

// mark says which prefixes of each selector c matches, and records c
// when one matches whole.
func (m *matcher) mark(c *html.Node, parent, prev, sib *prefixes) prefixes {
	var cur prefixes
	hit := false
	for g, cs := range m.sel.complex {
		var bits uint8
		for i, part := range cs.parts {
			if i > 0 {
				var before uint8
				switch cs.combs[i-1] {
				case ' ':
					if parent != nil {
						before = parent.anc[g]
					}
				case '>':
					if parent != nil {
						before = parent.self[g]
					}
				case '+':
					before = prev.self[g]
				case '~':
					before = sib.self[g]
				}
				if before&(1<<(i-1)) == 0 {
					continue
				}
			}
			if part.Match(c) {
				bits |= 1 << i
			}
		}
		cur.self[g] = bits
		cur.anc[g] = bits
		if parent != nil {
			cur.anc[g] |= parent.anc[g]
		}
		hit = hit || bits&(1<<(len(cs.parts)-1)) != 0
	}
	if hit {
		m.found = append(m.found, c)
	}
	return cur
}
