package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storePackage is the package whose database adapters never reach.
const storePackage = "tidings/db"

// TestAdaptersReachNoStore holds what architecture.md says of a source's
// adapter: it reads through CollectionRun and writes only through its
// Result, stored in the harvest's one transaction. No package under
// harvest/ but the core itself calls a method of db.DB, calls a function
// of package db (db.Open), or holds a db.DB at all; db's value types
// (db.Page, db.Change, …) are what it hands back.
func TestAdaptersReachNoStore(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the adapters against their compiled imports")
	}
	exports, err := exportData("..", "./harvest/...")
	if err != nil {
		t.Fatal(err)
	}
	var adapters []string
	for path := range exports {
		if strings.HasPrefix(path, "tidings/harvest/") {
			adapters = append(adapters, path)
		}
	}
	if len(adapters) < 5 {
		t.Fatalf("found %d packages under harvest/, %v: the listing is wrong", len(adapters), adapters)
	}
	for _, path := range adapters {
		for _, p := range storeUses(t, "..", path, exports) {
			t.Error(p)
		}
	}
}

// exportData lists the packages of pattern and everything they import,
// each with the file that holds its compiled export data.
func exportData(root, pattern string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", pattern)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, ok := strings.Cut(sc.Text(), "\t")
		if ok && file != "" {
			exports[path] = file
		}
	}
	return exports, sc.Err()
}

// storeUses type-checks the non-test files of the package path and says
// each place it reaches the store.
func storeUses(t *testing.T, root, path string, exports map[string]string) []string {
	t.Helper()
	dir := filepath.Join(root, strings.TrimPrefix(path, "tidings/"))
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range append(bp.GoFiles, bp.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(p string) (io.ReadCloser, error) {
		file, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(file)
	})
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	if _, err := (&types.Config{Importer: imp}).Check(path, fset, files, info); err != nil {
		t.Fatalf("type-check %s: %v", path, err)
	}
	var found []string
	say := func(pos token.Pos, what string) {
		found = append(found, fmt.Sprintf("%s: %s: adapters write through their Result and read through CollectionRun", fset.Position(pos), what))
	}
	for sel, s := range info.Selections {
		if s.Kind() == types.MethodVal && isStore(s.Recv()) {
			say(sel.Pos(), "calls db.DB's "+s.Obj().Name())
		}
	}
	for id, obj := range info.Uses {
		if fn, ok := obj.(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == storePackage && fn.Type().(*types.Signature).Recv() == nil {
			say(id.Pos(), "calls db."+fn.Name())
		}
	}
	for expr, tv := range info.Types {
		if tv.IsValue() && isStore(tv.Type) {
			say(expr.Pos(), "holds a "+tv.Type.String())
		}
	}
	slices.Sort(found)
	return found
}

// isStore reports whether t is db.DB or a pointer to it.
func isStore(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == storePackage && n.Obj().Name() == "DB"
}
