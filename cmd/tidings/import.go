package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"tidings/fetch"
	"tidings/follow"
	"tidings/imports"
)

const importUsage = "usage: tidings import --user NAME [--preview] FILE (- reads standard input), or tidings import --user NAME --export > FILE"

// cmdImport imports, for a person, a file of any format the import page
// reads, saying first what it follows and what it refuses and why; or,
// with --export, writes everything the person set as the file the
// import reads back.
func cmdImport(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("import --user NAME [--preview] FILE | import --user NAME --export", stderr)
	globalFlags(fs, &cfg)
	notifyFlags(fs, &cfg)
	name := fs.String("user", "", "whose follows and settings")
	preview := fs.Bool("preview", false, "say what the import would do, and do nothing")
	export := fs.Bool("export", false, "write everything the user set, as the file this command imports, to standard output")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if *name == "" || *export == (fs.NArg() == 1) || fs.NArg() > 1 {
		return usageError{importUsage}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelError)
	if err != nil {
		return err
	}
	defer a.store.Close()
	u, err := a.userNamed(ctx, *name)
	if err != nil {
		return err
	}
	if *export {
		e, err := follow.Export(ctx, a.store, u, time.Now())
		if err != nil {
			return err
		}
		b, err := e.Write()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	data, err := readImportFile(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	plan, err := imports.Parse(data)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "imports: "))
	}
	n, err := a.newNotifier(fetch.NewClient(cfg.clientOptions()))
	if err != nil {
		return err
	}
	if *preview {
		pv, err := a.follow.Preview(ctx, u.ID, plan, n)
		if err != nil {
			return err
		}
		printImport(stdout, pv)
		return nil
	}
	im, pv, err := a.follow.ImportPlan(ctx, u, plan, n)
	var nothing *follow.NothingToImportError
	if errors.As(err, &nothing) {
		printImport(stdout, pv)
		return errors.New("nothing in the file can be followed")
	}
	if err != nil {
		return err
	}
	printImport(stdout, pv)
	a.follow.Wait()
	list, err := a.store.Discoveries(ctx, u.ID, im.ID, follow.MaxImportSites)
	if err != nil {
		return err
	}
	for i := len(list) - 1; i >= 0; i-- {
		x := list[i]
		fmt.Fprintf(stdout, "%s: %s", x.Status, termText(x.InputURL))
		if x.Message != "" {
			fmt.Fprintf(stdout, " (%s)", termText(x.Message))
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// readImportFile reads the file named, or standard input for "-", up
// to the largest file an import reads.
func readImportFile(name string, stdin io.Reader) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, imports.MaxZipBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(b) > imports.MaxZipBytes {
		return nil, fmt.Errorf("%s is larger than an import reads (%d MiB)", name, imports.MaxZipBytes>>20)
	}
	return b, nil
}

// printImport says what an import does, every value from the file
// cleaned for a terminal.
func printImport(w io.Writer, pv follow.Preview) {
	fmt.Fprintf(w, "Read as: %s\n", pv.Format)
	fmt.Fprintf(w, "To follow (%d):\n", len(pv.Follow))
	for _, p := range pv.Follow {
		line := "  " + termText(p.URL)
		if p.Title != "" {
			line += fmt.Sprintf(" as %q", termText(p.Title))
		}
		if p.Followed {
			line += " (followed already)"
		}
		fmt.Fprintln(w, line)
		for _, r := range p.Rules {
			fmt.Fprintf(w, "    rule (%s): %s\n", r.Kind, termText(r.Pattern))
		}
		if len(p.Tags) > 0 {
			fmt.Fprintf(w, "    tags, not kept (tidings has no folders): %s\n", termText(strings.Join(p.Tags, ", ")))
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "    note: %s\n", termText(n))
		}
	}
	for _, s := range pv.Settings {
		fmt.Fprintf(w, "Setting: %s\n", termText(s))
	}
	if refused := append(pv.Refused, pv.NotSet...); len(refused) > 0 {
		fmt.Fprintf(w, "Not imported (%d):\n", len(refused))
		for _, r := range refused {
			fmt.Fprintf(w, "  %s: %s\n", termText(r.What), termText(r.Why))
		}
	}
}
