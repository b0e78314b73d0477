package publish

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// dater dates the changes of a run.
type dater struct {
	now time.Time
	dir string
	git *gitRepo        // nil: every change is dated now
	dty map[string]bool // files not as committed
	// tracked are the files git knows: only those, and files gone from
	// the folder, may have a commit to be dated by.
	tracked map[string]bool
}

// newDater picks the dating the options ask for: git inside a git work
// tree unless told now, and an error when git is asked for outside one.
func newDater(ctx context.Context, o *Options, now time.Time) (*dater, error) {
	d := &dater{now: now, dir: o.Dir}
	if o.Datetime == DatetimeNow {
		return d, nil
	}
	g, err := openGit(ctx, o.Dir)
	if err != nil {
		why := strings.TrimPrefix(err.Error(), "publish: ")
		switch {
		case o.Datetime == DatetimeGit:
			return nil, usagef("--datetime git: %s is not inside a git work tree that git can read (%s); use --datetime now", o.Dir, why)
		case o.History > 0:
			return nil, usagef("--history reads the commits of a git work tree, and %s is not inside one that git can read (%s)", o.Dir, why)
		}
		return d, nil
	}
	dty, err := g.dirty(ctx)
	if err != nil {
		return nil, err
	}
	tracked, err := g.tracked(ctx)
	if err != nil {
		return nil, err
	}
	d.git, d.dty, d.tracked = g, dty, tracked
	return d, nil
}

// dated is when a file's change was made and, when a commit made it, the
// commit's subject, which is the change's note.
type dated struct {
	at      time.Time
	subject string
}

// dates gives each file (slash path from the site's root) its date: the
// last commit that touched it when its state in the folder is the
// committed one, else the run's time.
func (d *dater) dates(ctx context.Context, rels []string) (map[string]dated, error) {
	out := make(map[string]dated, len(rels))
	want := map[string]bool{}
	for _, r := range rels {
		out[r] = dated{at: d.now}
		if d.git != nil && !d.dty[r] && d.inHistory(r) {
			want[r] = true
		}
	}
	if len(want) == 0 {
		return out, nil
	}
	found, err := d.git.lastCommits(ctx, want)
	if err != nil {
		return nil, err
	}
	for r, c := range found {
		t := c.at
		// A commit dated after the run (a clock ahead) would date the
		// change in the future, where readers set it aside.
		if t.After(d.now) {
			t = d.now
		}
		out[r] = dated{at: t, subject: c.subject}
	}
	return out, nil
}

// inHistory reports whether a file may have a commit: one git tracks, or
// one no longer in the folder (its deletion may be committed). An
// untracked file has none, and looking for it would read the whole
// history.
func (d *dater) inHistory(rel string) bool {
	if d.tracked[rel] {
		return true
	}
	_, err := os.Lstat(filepath.Join(d.dir, filepath.FromSlash(rel)))
	return errors.Is(err, fs.ErrNotExist)
}
