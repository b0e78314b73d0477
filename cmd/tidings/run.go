package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/fetch"
	"tidings/follow"
	"tidings/harvest"
	_ "tidings/harvest/sources" // every source of change information tidings follows
	"tidings/source"
)

// Version and Commit are set at build time with -ldflags.
var (
	Version = ""
	Commit  = "unknown"
)

// release is the version this binary was released as: Version when the
// build set it, else the module version Go stamped (go install
// tidings@v1.2.3), else "" for a development build. "dev" is what the
// Dockerfile passes when it is given no version; a pseudo-version is the
// one Go makes up for an untagged commit.
func release() string {
	if Version != "" && Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "(devel)" && !pseudoVersion.MatchString(bi.Main.Version) {
		return bi.Main.Version
	}
	return ""
}

// pseudoVersion matches the versions Go gives untagged commits
// (v0.0.0-20261125120000-0123456789ab, +dirty when the tree was).
var pseudoVersion = regexp.MustCompile(`^$|\d{14}-[0-9a-f]{12}(\+dirty)?$`)

// versionName is how tidings names its version to people: "v1.2.3", or
// "(development build)".
func versionName() string {
	if v := release(); v != "" {
		return v
	}
	return "(development build)"
}

// commit is the commit set at build time, else the one the Go toolchain
// stamped into the binary (go build with VCS stamping).
func commit() string {
	if Commit != "unknown" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return Commit
}

// usageError is a mistake in how tidings was called (exit code 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// topUsage is the top-level help; its first line names the sources of
// change information the harvester knows (see sources).
var topUsage = `tidings follows how websites announce changes (` + sources() + `)
and serves one feed per collection, in Atom, RSS and JSON Feed.

Usage: tidings <command> [flags]

Commands:
  demo                  try tidings: sample sites on loopback, followed and changing every minute
  serve                 run the web server (feeds and the web UI) and the background work:
                        the scheduler, discoveries and notifications (--no-scheduler: only the web server)
  worker                run only the background work, with no listener; any number of
                        serve, worker and harvest processes may share one database
  follow URL... [--from FILE]
                        discover sites, record them and harvest them now
  harvest [--all | --site URL]
                        harvest the sites that are due (or all, or one) now
  feeds [--json]        list collections and their feed URLs
  ignore URL [--text TEXT]... [--css SELECTOR]... [--remove ID]...
                        list a site's ignore rules, adding or removing some
  check URL             say what tidings finds on a site and what its owner should fix
  export changes [--site URL] [--collection ID]
                        print every stored change as JSON Lines
  notify [--now]        send the e-mail digests and pushes that are due (--now: every digest)
  user add NAME         create an account (password from the terminal or stdin)
  user list             list accounts
  user delete NAME      delete an account and its follows
  user notify NAME [--email ADDR] [--every daily|weekly|off] [--push URL]... [--no-push URL] [--push-secret SECRET]
                        set how a person is told of changes: e-mail digest, pushes
  user token NAME [--label TEXT] [--list] [--revoke ID]
                        make (and print once), list or revoke a person's API tokens
  opml export --user NAME [--entries page]
                        print the OPML of everything a user follows
  import --user NAME [--preview] FILE
                        follow the sites of an OPML file, a changedetection.io backup, an urlwatch
                        urls.yaml, a list of addresses or an export, saying what is refused and why
  import --user NAME --export
                        print everything a user set, as the file import reads back
  publish DIR --base-url URL
                        write a static site's ResourceSync change lists into it
  backup FILE           write a consistent copy of the database, also while serve runs
  restore FILE          replace the database with a backup (refused while serve or worker runs)
  copy-db --to URL_OR_PATH
                        copy the whole database into a new SQLite file or an empty PostgreSQL database
  version               print the version

Run "tidings <command> --help" for a command's flags.
`

// sources lists the sources of change information this tidings follows,
// from their registrations, so that a new one is in the help as soon as
// it is harvested.
func sources() string {
	var names []string
	for _, i := range source.All() {
		names = append(names, i.Help)
	}
	return strings.Join(names, ", ")
}

// run is the whole CLI; main only wires it to the process.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return usageError{"no command given"}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		// serve --demo takes the demo's flags (--demo-every), which serve
		// would refuse.
		if d := demoArgs(rest); len(d) != len(rest) {
			return cmdDemo(ctx, d, getenv, stdout, stderr)
		}
		return cmdServe(ctx, rest, getenv, stdout, stderr)
	case "worker":
		return cmdWorker(ctx, rest, getenv, stdout, stderr)
	case "demo":
		return cmdDemo(ctx, rest, getenv, stdout, stderr)
	case "follow":
		return cmdFollow(ctx, rest, getenv, stdin, stdout, stderr)
	case "harvest":
		return cmdHarvest(ctx, rest, getenv, stdout, stderr)
	case "feeds":
		return cmdFeeds(ctx, rest, getenv, stdout, stderr)
	case "ignore":
		return cmdIgnore(ctx, rest, getenv, stdout, stderr)
	case "check":
		return cmdCheck(ctx, rest, getenv, stdout, stderr)
	case "export":
		return cmdExport(ctx, rest, getenv, stdout, stderr)
	case "notify":
		return cmdNotify(ctx, rest, getenv, stdout, stderr)
	case "user":
		return cmdUser(ctx, rest, getenv, stdin, stdout, stderr)
	case "opml":
		return cmdOPML(ctx, rest, getenv, stdout, stderr)
	case "import":
		return cmdImport(ctx, rest, getenv, stdin, stdout, stderr)
	case "publish":
		return cmdPublish(ctx, rest, getenv, stdout, stderr)
	case "backup":
		return cmdBackup(ctx, rest, getenv, stdout, stderr)
	case "restore":
		return cmdRestore(ctx, rest, getenv, stdout, stderr)
	case "copy-db":
		return cmdCopyDB(ctx, rest, getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "tidings %s (commit %s)\n", versionName(), commit())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, topUsage)
		return nil
	}
	return usageError{unknownCommand(cmd)}
}

// unknownCommand says, in one sentence, that cmd is no command and what
// to do: the help is a command away, not printed in front of the mistake.
func unknownCommand(cmd string) string {
	if strings.HasPrefix(cmd, "-") {
		return fmt.Sprintf("unknown command %q: the command comes first and its flags after it, as in tidings feeds --db FILE; tidings help lists the commands", cmd)
	}
	return fmt.Sprintf("unknown command %q; tidings help lists the commands", cmd)
}

func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "tidings:", termText(err.Error()))
		return 2
	}
	// An error may quote a site: a title, a server's status line.
	fmt.Fprintln(stderr, "tidings:", termText(err.Error()))
	return 1
}

// app is what the subcommands share once the settings are known.
type app struct {
	cfg       Config
	store     *db.DB
	harvester *harvest.Harvester
	// follow does, over the harvester, what the commands ask of sites.
	follow *follow.Service
	log    *slog.Logger
	// followed are the sites a follow recorded, in the order done.
	followed []db.Site
	// guessedURL: no public address was given or remembered, so feed
	// addresses use one made of an --addr: the one serve last served
	// under, when it remembers one, else serve's default.
	guessedURL bool
	// urlFrom says where the feed addresses' start came from, when it was
	// not given to this command (see publicURL); "" when it was.
	urlFrom string
}

// openApp opens the store and builds the harvester. Logs go to stderr at
// level, as text or JSON (--log-format); the CLI commands keep them to
// warnings, their output is the report.
func openApp(ctx context.Context, cfg Config, stderr io.Writer, level slog.Level) (*app, error) {
	if err := cfg.validate(); err != nil {
		return nil, usageError{err.Error()}
	}
	// A PostgreSQL database is created by its operator; tidings makes
	// only its tables.
	if !cfg.MayCreate && !db.IsPostgres(cfg.DB) {
		if _, err := os.Stat(cfg.DB); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("there is no database %s: give the one serve uses with --db or TIDINGS_DB (serve, follow and user add create a new one)", cfg.DB)
		}
	}
	store, err := db.Open(ctx, cfg.DB)
	if db.IsPostgres(cfg.DB) && db.IsUnavailable(err) && ctx.Err() == nil {
		return nil, fmt.Errorf("the database --db names, %s, does not answer (%s): start it, or correct --db (TIDINGS_DB), and run the command again",
			db.Redact(cfg.DB), unreachableCause(err))
	}
	if err != nil {
		return nil, err
	}
	var log *slog.Logger
	if cfg.LogFormat == "json" {
		log = slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	} else {
		log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	}
	a := &app{cfg: cfg, store: store, log: log}
	if err := a.publicURL(ctx); err != nil {
		store.Close()
		return nil, err
	}
	if cfg.groups&groupHarvest != 0 {
		a.setHarvester(harvest.New(fetch.NewClient(cfg.clientOptions()), store, cfg.harvestOptions(log)), follow.Options{})
	}
	return a, nil
}

// publicURL settles the public address the command prints feed
// addresses with: the one given; else, but for serve, the one serve was
// last started with, which it remembers in the database; else, a guess
// (a.guessedURL then says so), the one serve made of its --addr when it
// was given none, which it remembers too; else the one made of this
// command's --addr.
func (a *app) publicURL(ctx context.Context) error {
	if a.cfg.groups&groupAddress == 0 || a.cfg.serves {
		return nil
	}
	if a.cfg.baseURLGiven {
		return nil
	}
	u, at, err := a.store.PublicURL(ctx)
	if err == nil {
		a.cfg.BaseURL = u
		a.urlFrom = fmt.Sprintf("the public address serve was last started with (--base-url, %s)", at.UTC().Format(recordedAt))
		return nil
	}
	if !errors.Is(err, db.ErrNotFound) {
		return err
	}
	a.guessedURL = true
	u, at, err = a.store.ServedURL(ctx)
	switch {
	case err == nil:
		a.cfg.BaseURL = u
		a.urlFrom = fmt.Sprintf("where serve last listened on this database (%s); it was given no --base-url, so readers on other machines need the address they reach it at: give it with --base-url", at.UTC().Format(recordedAt))
	case errors.Is(err, db.ErrNotFound) && a.cfg.Addr != defaultAddr:
		a.urlFrom = "a guess made of TIDINGS_ADDR, where serve is to listen: no serve has run on this database yet; give the address readers reach tidings at with --base-url"
	case errors.Is(err, db.ErrNotFound):
		a.urlFrom = "serve's default address, a guess: no serve has run on this database yet; give the address readers reach tidings at with --base-url"
	default:
		return err
	}
	return nil
}

// recordedAt is how a recorded address's time is said.
const recordedAt = "2006-01-02 15:04 UTC"

// sayFeedBase says, for a command that printed feed addresses, where the
// start of those addresses came from, unless it was given to it.
func (a *app) sayFeedBase(w io.Writer) {
	if a.urlFrom != "" {
		fmt.Fprintf(newTermWriter(w), "Feed addresses start with %s, %s.\n", a.cfg.BaseURL, a.urlFrom)
	}
}

// setHarvester makes h the harvester the commands harvest with, through a
// follow service of options o.
func (a *app) setHarvester(h *harvest.Harvester, o follow.Options) {
	o.Logger = a.log
	a.harvester = h
	a.follow = follow.New(a.store, h, o)
}

// feedURL is a collection's Atom feed address.
func (a *app) feedURL(col db.Collection) string {
	return a.cfg.BaseURL + feedbuild.CollectionFeedPath(col)
}
