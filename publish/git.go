package publish

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// gitTimeout bounds one git command: a huge history must not hold the
// upload routine for ever.
const gitTimeout = 2 * time.Minute

// maxHistory bounds the changes --history reads.
const maxHistory = 100000

// maxGitLine bounds one NUL-separated field of git's output (a path).
const maxGitLine = 64 << 10

// gitRepo runs git in the site's folder; paths are relative to it.
type gitRepo struct{ dir string }

// openGit returns the git work tree the folder is in, or an error saying
// why there is none (not a work tree, git not installed, a repository git
// refuses to read).
func openGit(ctx context.Context, dir string) (*gitRepo, error) {
	g := &gitRepo{dir: dir}
	out, err := g.output(ctx, "rev-parse", "--is-inside-work-tree")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(out)) != "true" {
		return nil, errors.New("publish: not inside a git work tree")
	}
	return g, nil
}

func (g *gitRepo) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", g.dir, "-c", "core.quotepath=off"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_PAGER=cat")
	return cmd
}

// output runs a git command whose output is small.
func (g *gitRepo) output(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := g.command(ctx, args...)
	cmd.Stderr = &limitedBuffer{buf: &stderr, n: 4096}
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("publish: git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// dirty lists the files whose state in the folder is not the committed
// one: changed, staged, or deleted since HEAD. Their commits do not date
// what is published.
func (g *gitRepo) dirty(ctx context.Context) (map[string]bool, error) {
	set := map[string]bool{}
	if _, err := g.output(ctx, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		// No commit yet: nothing is committed, every file is dated now.
		return set, nil
	}
	err := g.stream(ctx, func(field string) bool {
		set[field] = true
		return true
	}, "diff", "--name-only", "-z", "--relative", "HEAD", "--", ".")
	return set, err
}

// tracked lists the files git knows in the folder: only those have a
// commit to be dated by.
func (g *gitRepo) tracked(ctx context.Context) (map[string]bool, error) {
	set := map[string]bool{}
	err := g.stream(ctx, func(field string) bool {
		set[field] = true
		return true
	}, "ls-files", "-z", "--", ".")
	return set, err
}

// logEntry is one file of one commit.
type logEntry struct {
	at      time.Time
	commit  string // its hash
	subject string // the first line of its message: the change's note
	status  byte   // A, M, D, T …
	rel     string
}

// log streams `git log --name-status` of the folder, newest first (or
// oldest first with reverse), to each until it returns false.
func (g *gitRepo) log(ctx context.Context, extra []string, each func(logEntry) bool) error {
	args := append([]string{"log", "-z", "--format=%x01%cI%x02%H%x02%s", "--name-status", "--no-renames", "--relative"}, extra...)
	args = append(args, "--", ".")
	var (
		at              time.Time
		commit, subject string
		status          byte
		badDate         error
	)
	err := g.stream(ctx, func(field string) bool {
		field = strings.TrimPrefix(field, "\n")
		switch {
		case strings.HasPrefix(field, "\x01"):
			head := strings.SplitN(strings.TrimPrefix(field, "\x01"), "\x02", 3)
			t, err := time.Parse(time.RFC3339, head[0])
			if err != nil || len(head) != 3 {
				badDate = fmt.Errorf("publish: git log gave the commit line %q: %v", field[1:], err)
				return false
			}
			at, commit, subject, status = t.UTC(), head[1], head[2], 0
		case status == 0:
			if field == "" {
				return true
			}
			status = field[0]
		default:
			e := logEntry{at: at, commit: commit, subject: subject, status: status, rel: field}
			status = 0
			return each(e)
		}
		return true
	}, args...)
	if badDate != nil {
		return badDate
	}
	return err
}

// lastCommits finds, for each wanted file, the last commit that touched
// it; it reads the history only as far back as it must.
func (g *gitRepo) lastCommits(ctx context.Context, want map[string]bool) (map[string]logEntry, error) {
	found := map[string]logEntry{}
	if len(want) == 0 {
		return found, nil
	}
	if _, err := g.output(ctx, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		return found, nil
	}
	err := g.log(ctx, nil, func(e logEntry) bool {
		if want[e.rel] {
			if _, ok := found[e.rel]; !ok {
				found[e.rel] = e
			}
		}
		return len(found) < len(want)
	})
	return found, err
}

// stream runs a git command whose output is NUL-separated fields, handing
// each to each until it returns false, when git is stopped.
func (g *gitRepo) stream(ctx context.Context, each func(string) bool, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := g.command(ctx, args...)
	cmd.Stderr = &limitedBuffer{buf: &stderr, n: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("publish: git: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("publish: git: %w", err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 4096), maxGitLine)
	sc.Split(splitNUL)
	stopped := false
	for sc.Scan() {
		if !each(sc.Text()) {
			stopped = true
			break
		}
	}
	scanErr := sc.Err()
	if stopped || scanErr != nil {
		// What is left is not needed: stop git rather than read it all.
		cancel()
		io.Copy(io.Discard, out)
		cmd.Wait()
		if scanErr != nil {
			return fmt.Errorf("publish: git %s: %w", args[0], scanErr)
		}
		return nil
	}
	if err := cmd.Wait(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("publish: git %s took longer than %s", args[0], gitTimeout)
		}
		return fmt.Errorf("publish: git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// limitedBuffer keeps the first n bytes written to it: git's error
// message, not a flood.
type limitedBuffer struct {
	buf *bytes.Buffer
	n   int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// blob reads the file rel (relative to the site's folder) as the commit
// rev has it; false when rev has no such file, or one over max bytes.
func (g *gitRepo) blob(ctx context.Context, rev, rel string, max int64) ([]byte, bool) {
	spec := rev + ":./" + rel
	size, err := g.output(ctx, "cat-file", "-s", spec)
	if err != nil {
		return nil, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(size)), 10, 64)
	if err != nil || n > max {
		return nil, false
	}
	data, err := g.output(ctx, "cat-file", "blob", spec)
	if err != nil {
		return nil, false
	}
	return data, true
}
