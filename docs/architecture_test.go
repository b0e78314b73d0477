// Package docs holds tests of the documentation: the package table of
// architecture.md is held against the imports of the code, and the links
// between the pages against the pages.
package docs

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tableHeader is the header row of architecture.md's package table.
const tableHeader = "| package | what it holds | imports of ours |"

// TestArchitectureTable holds architecture.md's package table against the
// non-test imports of every package of the module.
func TestArchitectureTable(t *testing.T) {
	md, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := modulePackages("..")
	if err != nil {
		t.Fatal(err)
	}
	problems := checkTable(string(md), pkgs)
	for _, p := range problems {
		t.Error(inPage("docs/architecture.md", p))
	}
	if len(problems) > 0 {
		t.Log(`the package table must say what the code imports; go list -f '{{.ImportPath}}: {{join .Imports " "}}' ./... lists it`)
	}
}

// inPage names the page in a problem checkTable found: "page:12: …" for
// a line, "page: …" for the whole table.
func inPage(page, problem string) string {
	if rest, ok := strings.CutPrefix(problem, "table: "); ok {
		return page + ": " + rest
	}
	return page + ":" + problem
}

// modulePackages returns, for each package of the module rooted at root
// that has non-test Go files, its path from the root (without a trailing
// slash; "." for the root) and the module's packages it imports, outside
// its tests, named the same way.
func modulePackages(root string) (map[string][]string, error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	pkgs := map[string][]string{}
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root {
			// What the go command leaves out of ./..., and other modules.
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := build.Default.ImportDir(dir, 0)
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the package in %s: %w", dir, err)
		}
		if len(p.GoFiles)+len(p.CgoFiles) == 0 {
			return nil // tests only
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		imports := []string{}
		for _, imp := range p.Imports {
			if imp == module {
				imports = append(imports, ".")
			} else if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, rest)
			}
		}
		pkgs[filepath.ToSlash(rel)] = imports
		return nil
	})
	return pkgs, err
}

// modulePath reads the module's path from its go.mod.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New(gomod + " names no module")
}

// tableRow is one row of the package table, as written.
type tableRow struct {
	line     int      // in the page, from 1
	packages []string // without the trailing slash
	imports  []string // nil for none
}

// name is how a problem names the row: its first column.
func (r tableRow) name() string {
	var b strings.Builder
	for i, p := range r.packages {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + p + "/`")
	}
	return b.String()
}

var listItem = regexp.MustCompile("^`([A-Za-z0-9._/-]+)`$")

// checkTable compares the package table in md with pkgs, the module's
// packages and their imports, and returns each difference as a sentence
// that starts with the line it is about ("12: …"), or with "table: " when
// no line is.
func checkTable(md string, pkgs map[string][]string) []string {
	rows, problems := parseTable(md)
	if rows == nil {
		if problems == nil {
			return []string{"table: no package table (a header row " + tableHeader + ")"}
		}
		return problems // the table itself does not read
	}
	hasRow := map[string]bool{}
	for _, r := range rows {
		for _, p := range r.packages {
			hasRow[p] = true
		}
	}
	newSource := sourcesWithoutRows(pkgs, hasRow)
	named := map[string]int{} // package → line of its row
	for _, r := range rows {
		at := fmt.Sprintf("%d: row %s: ", r.line, r.name())
		union := map[string][]string{} // import → the row's packages that import it
		known := 0
		for _, p := range r.packages {
			if line, ok := named[p]; ok {
				problems = append(problems, fmt.Sprintf("%spackage `%s/` already has a row, on line %d", at, p, line))
				continue
			}
			named[p] = r.line
			imports, ok := pkgs[p]
			if !ok {
				problems = append(problems, fmt.Sprintf("%spackage `%s/` does not exist (no non-test Go files in %s/)", at, p, p))
				continue
			}
			known++
			for _, imp := range imports {
				union[imp] = append(union[imp], "`"+p+"/`")
			}
		}
		if known == 0 {
			continue
		}
		listed := map[string]bool{}
		for _, imp := range r.imports {
			if listed[imp] {
				problems = append(problems, fmt.Sprintf("%simports column lists `%s` twice", at, imp))
			}
			listed[imp] = true
		}
		for _, imp := range slices.Sorted(maps.Keys(union)) {
			// The registry's links to a source the table does not
			// describe yet are that source's, checked below.
			if !listed[imp] && newSource[imp] == "" {
				verb := "imports"
				if len(union[imp]) > 1 {
					verb = "import"
				}
				problems = append(problems, fmt.Sprintf("%simports column lacks `%s`, which %s %s", at, imp, strings.Join(union[imp], " and "), verb))
			}
		}
		for _, imp := range slices.Sorted(maps.Keys(listed)) {
			if union[imp] == nil {
				who := "none of its packages imports it"
				if len(r.packages) == 1 {
					who = "which " + r.name() + " does not import"
				}
				problems = append(problems, fmt.Sprintf("%simports column lists `%s`, %s", at, imp, who))
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if _, ok := named[p]; ok {
			continue
		}
		kind := newSource[p]
		if kind == "" {
			problems = append(problems, fmt.Sprintf("table: package `%s/` has no row", p))
			continue
		}
		problems = append(problems, checkNewSource(p, kind, pkgs, hasRow, newSource)...)
	}
	return problems
}

// sourcePackages sorts the module's source packages: the adapters the
// registry links (harvest/sources imports them) and the parsers, the
// packages that only adapters import.
func sourcePackages(pkgs map[string][]string) (adapters, parsers map[string]bool) {
	adapters, parsers = map[string]bool{}, map[string]bool{}
	for _, imp := range pkgs["harvest/sources"] {
		if strings.HasPrefix(imp, "harvest/") {
			adapters[imp] = true
		}
	}
	importers := map[string][]string{}
	for p, imports := range pkgs {
		for _, imp := range imports {
			importers[imp] = append(importers[imp], p)
		}
	}
	for p, by := range importers {
		if !adapters[p] && !slices.ContainsFunc(by, func(q string) bool { return !adapters[q] }) {
			parsers[p] = true
		}
	}
	return adapters, parsers
}

// sourcesWithoutRows finds the source packages without a row, as
// "adapter" or "parser". A new source is its parser, its adapter, one line
// in harvest/sources and its own docs page; the table describes it when
// someone writes its rows, and until then checkNewSource holds it to what
// the described sources import.
func sourcesWithoutRows(pkgs map[string][]string, hasRow map[string]bool) map[string]string {
	adapters, parsers := sourcePackages(pkgs)
	kinds := map[string]string{}
	for p := range adapters {
		if !hasRow[p] {
			kinds[p] = "adapter"
		}
	}
	for p := range parsers {
		if !hasRow[p] {
			kinds[p] = "parser"
		}
	}
	return kinds
}

// checkNewSource holds a source package without a row to the imports of
// the described packages of its kind: an adapter may import what another
// adapter imports, and its own parsers; a parser what another parser
// imports (no store, no I/O). Anything else needs a row that says why.
func checkNewSource(p, kind string, pkgs map[string][]string, hasRow map[string]bool, newSource map[string]string) []string {
	adapters, parsers := sourcePackages(pkgs)
	peers := adapters
	if kind == "parser" {
		peers = parsers
	}
	allowed := map[string]bool{}
	for q := range peers {
		if hasRow[q] {
			for _, imp := range pkgs[q] {
				allowed[imp] = true
			}
		}
	}
	var problems []string
	for _, imp := range pkgs[p] {
		if allowed[imp] || kind == "adapter" && newSource[imp] == "parser" {
			continue
		}
		problems = append(problems, fmt.Sprintf("table: package `%s/` (a registered source's %s, with no row yet) imports `%s`, which no described %s does: give it a row that says why", p, kind, imp, kind))
	}
	return problems
}

// parseTable reads the package table of md: the rows under the header row
// up to the first line that is no row. Rows it cannot read are problems.
// It returns nil, nil when md has no such table.
func parseTable(md string) ([]tableRow, []string) {
	lines := strings.Split(md, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == tableHeader {
			if start >= 0 {
				return nil, []string{fmt.Sprintf("%d: a second package table (the first is on line %d)", i+1, start+1)}
			}
			start = i
		}
	}
	if start < 0 {
		return nil, nil
	}
	if start+1 >= len(lines) || !regexp.MustCompile(`^\|( *:?-+:? *\|){3}$`).MatchString(strings.TrimSpace(lines[start+1])) {
		return nil, []string{fmt.Sprintf("%d: the package table's header row is not followed by | --- | --- | --- |", start+1)}
	}
	rows := []tableRow{}
	var problems []string
	for i := start + 2; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			break
		}
		at := fmt.Sprintf("%d: ", i+1)
		if !strings.HasSuffix(l, "|") || len(l) < 2 {
			problems = append(problems, at+"a row must end with |")
			continue
		}
		cells := splitRow(l[1 : len(l)-1])
		if len(cells) != 3 {
			problems = append(problems, fmt.Sprintf("%sa row has 3 cells, this one %d", at, len(cells)))
			continue
		}
		packages, err := parseList(cells[0], true)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%sthe package column %q: %v", at, cells[0], err))
			continue
		}
		r := tableRow{line: i + 1, packages: packages}
		if cells[2] == "`none`" {
			problems = append(problems, fmt.Sprintf("%srow %s: write none without backticks", at, r.name()))
			continue
		}
		if cells[2] != "none" {
			if r.imports, err = parseList(cells[2], false); err != nil {
				problems = append(problems, fmt.Sprintf("%srow %s: the imports column %q: %v", at, r.name(), cells[2], err))
				continue
			}
		}
		rows = append(rows, r)
	}
	return rows, problems
}

// splitRow splits the inside of a row at its pipes that are not escaped
// (\|), trimming each cell.
func splitRow(inner string) []string {
	var cells []string
	last := 0
	for i := 0; i < len(inner); i++ {
		switch inner[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, strings.TrimSpace(inner[last:i]))
			last = i + 1
		}
	}
	return append(cells, strings.TrimSpace(inner[last:]))
}

// parseList reads a comma-separated list of backticked package paths:
// each written `path/` in the package column (dirs), `path` in the imports
// column. It returns the paths without the slash.
func parseList(cell string, dirs bool) ([]string, error) {
	var out []string
	for item := range strings.SplitSeq(cell, ", ") {
		m := listItem.FindStringSubmatch(item)
		if m == nil {
			if dirs {
				return nil, fmt.Errorf("%q is not a package written `path/`; list them separated by \", \"", item)
			}
			return nil, fmt.Errorf("%q is not a package written `path`; list them separated by \", \", or write none", item)
		}
		p, slash := strings.CutSuffix(m[1], "/")
		switch {
		case dirs && !slash:
			return nil, fmt.Errorf("write `%s/`, with the slash", p)
		case !dirs && slash:
			return nil, fmt.Errorf("write `%s`, without the slash", p)
		case p == "" || strings.HasSuffix(p, "/"):
			return nil, fmt.Errorf("%q names no package", item)
		}
		out = append(out, p)
	}
	return out, nil
}
