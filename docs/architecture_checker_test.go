package docs

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// fakeModule is a module of five packages: a imports b and c, b and d
// import c.
var fakeModule = map[string][]string{
	"a": {"b", "c"},
	"b": {"c"},
	"c": {},
	"d": {"c"},
	"e": {},
}

const fakeTop = "# Packages\n\n" + tableHeader + "\n| --- | --- | --- |\n"

func TestCheckTableFindsWrongRows(t *testing.T) {
	for _, tc := range []struct {
		name, rows string
		want       []string
	}{{
		name: "a right table",
		rows: "| `a/` | the top | `b`, `c` |\n| `b/`, `d/` | two | `c` |\n| `c/`, `e/` | leaves | none |\n",
	}, {
		name: "a row missing an import, an extra import, a missing package, one that does not exist",
		rows: "| `a/` | the top | `b` |\n| `b/`, `d/` | two | `c`, `e` |\n| `c/` | a leaf | none |\n| `zz/` | gone | none |\n\nAfter the table.\n",
		want: []string{
			"5: row `a/`: imports column lacks `c`, which `a/` imports",
			"6: row `b/`, `d/`: imports column lists `e`, none of its packages imports it",
			"8: row `zz/`: package `zz/` does not exist (no non-test Go files in zz/)",
			"table: package `e/` has no row",
		},
	}, {
		name: "an import a single package does not have",
		rows: "| `a/` | the top | `b`, `c`, `e` |\n| `b/`, `d/` | two | `c`, `c` |\n| `c/`, `e/` | leaves | none |\n",
		want: []string{
			"5: row `a/`: imports column lists `e`, which `a/` does not import",
			"6: row `b/`, `d/`: imports column lists `c` twice",
		},
	}, {
		name: "an import several packages have, missing",
		rows: "| `a/` | the top | `b`, `c` |\n| `b/`, `d/` | two | none |\n| `c/`, `e/` | leaves | none |\n",
		want: []string{"6: row `b/`, `d/`: imports column lacks `c`, which `b/` and `d/` import"},
	}, {
		name: "a package in two rows",
		rows: "| `a/` | the top | `b`, `c` |\n| `b/`, `d/` | two | `c` |\n| `c/`, `e/` | leaves | none |\n| `e/` | again | none |\n",
		want: []string{"8: row `e/`: package `e/` already has a row, on line 7"},
	}, {
		name: "rows not written as the format says",
		rows: "| `a` | no slash | `b`, `c` |\n| `b/`, `d/` | two | `c/` |\n| `c/` | a leaf | `none` |\n| `e/` | two cells |\n| all below | prose | none |\n",
		want: []string{
			"5: the package column \"`a`\": write `a/`, with the slash",
			"6: row `b/`, `d/`: the imports column \"`c/`\": write `c`, without the slash",
			"7: row `c/`: write none without backticks",
			"8: a row has 3 cells, this one 2",
			"9: the package column \"all below\": \"all below\" is not a package written `path/`; list them separated by \", \"",
			"table: package `a/` has no row",
			"table: package `b/` has no row",
			"table: package `c/` has no row",
			"table: package `d/` has no row",
			"table: package `e/` has no row",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := checkTable(fakeTop+tc.rows, fakeModule)
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	if got := checkTable("# Packages\n\nNo table.\n", fakeModule); len(got) != 1 || !strings.Contains(got[0], "no package table") {
		t.Errorf("a page without the table: %q", got)
	}
}

// The real table, made wrong in each of the ways the check is for, fails
// against the real imports, naming the row and what is wrong.
func TestCheckTableFindsWrongRowsOfTheRealTable(t *testing.T) {
	data, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	pkgs, err := modulePackages("..")
	if err != nil {
		t.Fatal(err)
	}
	rows, problems := parseTable(md)
	if len(rows) == 0 || len(problems) > 0 {
		t.Fatalf("the table does not read: %q", problems)
	}
	lines := strings.Split(md, "\n")
	// withLine returns md with line n (from 1) replaced by text, or
	// removed when text is empty.
	withLine := func(n int, text string) string {
		out := slices.Clone(lines)
		if text == "" {
			return strings.Join(slices.Delete(out, n-1, n), "\n")
		}
		out[n-1] = text
		return strings.Join(out, "\n")
	}
	// withImports rewrites the imports column of a row.
	withImports := func(r tableRow, imports string) string {
		l := lines[r.line-1]
		i := strings.LastIndex(strings.TrimSuffix(strings.TrimSpace(l), "|"), "|")
		return withLine(r.line, l[:i]+"| "+imports+" |")
	}
	var withImport, withNone, single tableRow
	for _, r := range rows {
		if r.imports != nil && withImport.line == 0 {
			withImport = r
		}
		if r.imports == nil && withNone.line == 0 {
			withNone = r
		}
		if len(r.packages) == 1 && single.line == 0 {
			single = r
		}
	}
	if withImport.line == 0 || withNone.line == 0 || single.line == 0 {
		t.Fatalf("the table lacks a row with imports, one without, or one of a single package")
	}
	dropped := withImport.imports[0]
	kept := "none"
	if len(withImport.imports) > 1 {
		kept = "`" + strings.Join(withImport.imports[1:], "`, `") + "`"
	}
	extra := withNone.packages[0]
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if !slices.Contains(withNone.packages, p) {
			extra = p
			break
		}
	}
	for _, tc := range []struct{ name, md, want string }{
		{"a row missing an import", withImports(withImport, kept), "row " + withImport.name() + ": imports column lacks `" + dropped + "`"},
		{"a row with an extra import", withImports(withNone, "`"+extra+"`"), "row " + withNone.name() + ": imports column lists `" + extra + "`"},
		{"a package without a row", withLine(single.line, ""), "package " + single.name() + " has no row"},
		{"a row of a package that does not exist", withLine(single.line, lines[single.line-1]+"\n| `nosuchpackage/` | nothing | none |"), "row `nosuchpackage/`: package `nosuchpackage/` does not exist"},
	} {
		got := checkTable(tc.md, pkgs)
		if len(got) != 1 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s: problems %q, want one saying %q", tc.name, got, tc.want)
			continue
		}
		t.Logf("%s: %s", tc.name, inPage("docs/architecture.md", got[0]))
	}
}

// TestANewSourceNeedsNoRowYet: a seventh source (its parser, its adapter,
// the registry's line linking it) passes the table check before anyone
// writes its rows, as long as it imports what the described sources do;
// one that reaches further is named, and so is a package only adapters
// import once something else imports it too.
func TestANewSourceNeedsNoRowYet(t *testing.T) {
	data, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	real, err := modulePackages("..")
	if err != nil {
		t.Fatal(err)
	}
	withSource := func(adapterImports ...string) map[string][]string {
		pkgs := maps.Clone(real)
		pkgs["weather"] = []string{"hints"}
		pkgs["harvest/weather"] = append([]string{"db", "fetch", "harvest", "source", "weather"}, adapterImports...)
		pkgs["harvest/sources"] = append(slices.Clone(real["harvest/sources"]), "harvest/weather")
		return pkgs
	}
	about := func(problems []string) []string {
		return slices.DeleteFunc(problems, func(p string) bool { return !strings.Contains(p, "weather") })
	}
	if problems := about(checkTable(string(data), withSource())); len(problems) > 0 {
		t.Errorf("a new source without rows: %q, want none", problems)
	}
	problems := about(checkTable(string(data), withSource("web")))
	if len(problems) != 1 || !strings.Contains(problems[0], "`harvest/weather/` (a registered source's adapter, with no row yet) imports `web`") {
		t.Errorf("an adapter that imports web: %q, want that named", problems)
	}
	pkgs := withSource()
	pkgs["sitecheck"] = append(slices.Clone(pkgs["sitecheck"]), "weather")
	problems = checkTable(string(data), pkgs)
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, "package `weather/` has no row") }) {
		t.Errorf("a parser the site check imports: %q, want it to need a row", problems)
	}
}
