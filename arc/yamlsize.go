package arc

// yamlNodes is an upper bound on the nodes yaml.v3 builds for data,
// counted in one pass without parsing. It needs no context, so that no
// quote, comment or block scalar can hide a list from it: every node
// yaml.v3 makes starts a line or follows an indicator on its line, so a
// line counts one and each indicator the most nodes it can bring (a
// collection, an empty key, an empty value). Prose that uses indicator
// characters is counted as if it were structure, which only errs high.
func yamlNodes(data []byte) int {
	n := 3             // the document, its root, and the first line
	prev := byte('\n') // the last byte that was not a space or tab
	for i, c := range data {
		var next byte = ' '
		if i+1 < len(data) {
			next = data[i+1]
		}
		switch c {
		case '\n', '\r', 0x85, 0xa8, 0xa9: // and the second half of NEL, LS, PS
			n++
		case ':':
			if blankOrFlow(next) || isFlowOrQuote(prev) {
				n += 3
			}
		case '-', '?':
			if blank(next) {
				n += 3
			}
		case ',', '[', '{':
			n += 2
		case ']', '}', '*':
			n++
		}
		if c != ' ' && c != '\t' {
			prev = c
		}
	}
	return n
}

// blank is a space, a tab, or the start of a line break (NEL, LS and PS
// begin with 0xc2 or 0xe2).
func blank(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', 0xc2, 0xe2:
		return true
	}
	return false
}

func blankOrFlow(c byte) bool {
	return blank(c) || c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}

func isFlowOrQuote(c byte) bool {
	return c == '"' || c == '\'' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}
