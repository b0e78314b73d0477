package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"tidings/feedbuild"
	"tidings/fetch"
	"tidings/harvest"
	"tidings/pagetext"
	"tidings/source"
	"tidings/worker"
)

// maxFeedEntries bounds --feed-entries: a document of more entries is
// slow for readers to fetch and for tidings to render.
const maxFeedEntries = 1000

// Config is every setting, built once from flags and the environment
// (flag > TIDINGS_* variable > default) and passed down.
type Config struct {
	DB            string
	Addr          string
	BaseURL       string
	AllowPrivate  bool
	InitialWindow time.Duration
	Interval      time.Duration
	Discovery     time.Duration
	MaxBody       int64
	LogFormat     string // text or json
	Sources       source.SettingsSet
	Snapshots     harvest.SnapshotSettings
	SiteTimeout   time.Duration
	HostDelay     time.Duration
	MaxDocuments  int
	MaxChanges    int
	RuleBudget    int64
	MaxSiteBytes  int64
	DiscoveryDoc  time.Duration

	// Feeds, set by serve's flags (see feedFlags); harvest has the
	// WebSub ones (see websubFlags).
	FeedEntries  int
	FailingAfter time.Duration
	WebSubHub    string

	// UnfollowedRetention is how long serve's scheduler and harvest keep
	// the history of a site nobody follows any more; KeepChangesFor and
	// KeepChanges, how long and how many of each collection's changes
	// they keep (see retentionFlag).
	UnfollowedRetention time.Duration
	KeepChangesFor      time.Duration
	KeepChanges         int
	// SiteShare is how many bytes one site may store before the sweep
	// deletes its oldest changes; 0 is no limit.
	SiteShare int64

	// SMTPURL and MailFrom are where e-mail goes and who sends it (see
	// notifyFlags); without SMTPURL e-mail is off.
	SMTPURL  string
	MailFrom string

	// MayCreate: the command may create the database (serve, follow,
	// user add); the others refuse a --db that does not exist, which is
	// most likely a mistyped path.
	MayCreate bool

	// baseURLGiven: --base-url (or TIDINGS_BASE_URL) was given; else
	// BaseURL is the default made of --addr, which only serve knows to
	// be right, and the other commands look for the one serve was given.
	baseURLGiven bool
	// serves: the command is serve, which says what the public address
	// is rather than asks.
	serves bool

	// groups records which settings the command registered, and so
	// which it uses and validates.
	groups int
}

// The groups of settings a command may register besides storeFlags'.
const (
	groupAddress = 1 << iota // where serve listens and its public URL
	groupHarvest             // fetching and harvesting
)

// globalFlags registers the settings of the commands that harvest and
// log as they go: serve, worker, follow and harvest. Where to listen is
// serve's alone (addressFlags).
func globalFlags(fs *flag.FlagSet, c *Config) {
	storeFlags(fs, c)
	fs.StringVar(&c.LogFormat, "log-format", "text", "format of the log on standard error: text or json")
	baseURLFlag(fs, c)
	harvestFlags(fs, c)
}

// storeFlags registers the setting every command has: the database.
func storeFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.DB, "db", "./tidings.db", "SQLite database file, or a postgres:// URL")
}

// addressFlags registers where serve listens, beside the public URL.
func addressFlags(fs *flag.FlagSet, c *Config) {
	if f := fs.Lookup("addr"); f != nil {
		f.Usage = addrUsage
	} else {
		fs.StringVar(&c.Addr, "addr", defaultAddr, addrUsage)
	}
	if f := fs.Lookup("base-url"); f != nil {
		f.Usage = "public URL of this tidings, used in feeds, links and the User-Agent (default: http://<addr>/)"
	}
}

// defaultAddr is where serve listens when given no --addr.
const defaultAddr = "127.0.0.1:8080"

const addrUsage = "address the web server listens on"

// baseURLFlag registers the public URL, which the commands that print
// feed addresses or send links need as serve does. Those that do not
// listen have no --addr: without --base-url they use the address serve
// last recorded in the database (see app.publicURL).
func baseURLFlag(fs *flag.FlagSet, c *Config) {
	c.groups |= groupAddress
	// Not in the help, as the command listens nowhere; but an --addr
	// set for serve in the environment (TIDINGS_ADDR) is the better guess
	// before serve has recorded one.
	fs.StringVar(&c.Addr, "addr", defaultAddr, "")
	fs.StringVar(&c.BaseURL, "base-url", "", "public URL of this tidings, used in feeds, links and the User-Agent (default: the one serve last recorded in the database, else http://<serve's --addr>/)")
}

// harvestFlags registers how tidings fetches and harvests.
func harvestFlags(fs *flag.FlagSet, c *Config) {
	c.groups |= groupHarvest
	fs.BoolVar(&c.AllowPrivate, "allow-private-addresses", false, "allow fetching from loopback, private and link-local addresses")
	fs.DurationVar(&c.InitialWindow, "initial-window", harvest.DefaultInitialWindow, "on a collection's first harvest, changes older than this are stored as already seen")
	fs.DurationVar(&c.Interval, "interval", harvest.DefaultInterval, "time between two harvests of a site")
	fs.DurationVar(&c.Discovery, "discovery-interval", harvest.DefaultDiscoveryInterval, "how often a harvest looks for a site's change information everywhere, not only where it was found")
	fs.Int64Var(&c.MaxBody, "max-body", fetch.DefaultMaxBody, "largest document accepted, in bytes after decompression")
	fs.DurationVar(&c.HostDelay, "host-delay", 250*time.Millisecond, "least time between two requests to one host")
	fs.DurationVar(&c.SiteTimeout, "site-timeout", harvest.DefaultSiteTimeout, "longest one site's harvest may take")
	fs.IntVar(&c.MaxDocuments, "max-documents", harvest.DefaultMaxDocuments, "most documents one site's harvest may fetch")
	fs.IntVar(&c.MaxChanges, "max-changes", harvest.DefaultMaxChanges, "most changes one harvest of a collection stores; the later ones wait for the next harvest")
	fs.DurationVar(&c.DiscoveryDoc, "discovery-document-timeout", harvest.DefaultDiscoveryDocTimeout, "longest one document of a site's discovery (robots.txt, the home page, a sitemap) may take to arrive; one slower stops the discovery")
	fs.Int64Var(&c.MaxSiteBytes, "site-bytes", harvest.DefaultMaxSiteBytes, "most bytes one harvest of a site downloads, its discovery, crawl and page reads together; the rest waits for the next harvest")
	fs.Int64Var(&c.RuleBudget, "rule-budget", pagetext.DefaultRuleBudget, "what one ignore rule may cost in one harvest of its site, in units (a pattern's program size per byte of text, a selector's parts per element); a rule that spends it is switched off")
	c.Sources = source.DefaultSettings()
	c.Sources.RegisterFlags(fs)
	c.Snapshots.RegisterFlags(fs)
}

// feedFlags registers the settings of the feeds serve answers.
func feedFlags(fs *flag.FlagSet, c *Config) {
	fs.IntVar(&c.FeedEntries, "feed-entries", feedbuild.DefaultFeedEntries, "entries per feed document; older ones are on pages linked from it")
	websubFlags(fs, c)
}

// websubFlags registers what a command that harvests needs to ping the
// WebSub hub: the hub, and when a failing streak gives the feeds an entry,
// which is a change to ping for too.
func websubFlags(fs *flag.FlagSet, c *Config) {
	fs.DurationVar(&c.FailingAfter, "failing-after", feedbuild.DefaultFailingAfter, "how long a collection's harvests fail before its feed gains an entry saying so")
	fs.StringVar(&c.WebSubHub, "websub-hub", "", "URL of a WebSub hub: feeds name it, and it is pinged after each harvest that adds entries")
}

// retentionFlag registers how long history is kept, for the commands that
// sweep it: serve and harvest.
func retentionFlag(fs *flag.FlagSet, c *Config) {
	fs.DurationVar(&c.UnfollowedRetention, "unfollowed-retention", worker.DefaultUnfollowedRetention, "how long the history of a site nobody follows any more is kept before it is deleted")
	c.KeepChangesFor = worker.DefaultKeepChangesFor
	fs.Var((*days)(&c.KeepChangesFor), "keep-changes-for", "how long each collection's changes are kept (a duration such as 8760h, or days: 365d)")
	fs.IntVar(&c.KeepChanges, "keep-changes", worker.DefaultKeepChanges, "how many of each collection's newest changes are kept however old")
	fs.Int64Var(&c.SiteShare, "site-share", worker.DefaultSiteShare, "bytes one site may store before its oldest changes are deleted, however young, to bring it back within them; its newest --keep-changes stay (0: no limit)")
}

// validateRetention checks the settings retentionFlag registers.
func (c *Config) validateRetention() error {
	var errs []error
	if c.UnfollowedRetention <= 0 {
		errs = append(errs, fmt.Errorf("--unfollowed-retention must be positive, not %s", c.UnfollowedRetention))
	}
	if c.KeepChangesFor < 24*time.Hour {
		errs = append(errs, fmt.Errorf("--keep-changes-for must be at least a day, not %s", (*days)(&c.KeepChangesFor)))
	}
	if c.KeepChanges < 1 {
		errs = append(errs, fmt.Errorf("--keep-changes must be at least 1, not %d", c.KeepChanges))
	}
	if c.SiteShare < 0 {
		errs = append(errs, fmt.Errorf("--site-share must be 0 (no limit) or more bytes, not %d", c.SiteShare))
	}
	return errors.Join(errs...)
}

// retention is what the sweep keeps.
func (c *Config) retention() worker.Retention {
	share := c.SiteShare
	if share == 0 {
		share = -1 // the sweep's own zero is its default
	}
	return worker.Retention{KeepChangesFor: c.KeepChangesFor, KeepChanges: c.KeepChanges, Unfollowed: c.UnfollowedRetention, SiteShare: share}
}

// durationText says a retention as people read it: "365 days", "36h0m0s".
func durationText(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		n := d / (24 * time.Hour)
		if n == 1 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", n)
	}
	return d.String()
}

// days is a duration flag that also takes whole days ("365d"), which a
// retention is counted in.
type days time.Duration

// String writes whole days as days.
func (d *days) String() string {
	v := time.Duration(*d)
	if v > 0 && v%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(v/(24*time.Hour)), 10) + "d"
	}
	return v.String()
}

// Set reads "365d" or any time.ParseDuration form.
func (d *days) Set(s string) error {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		k, err := strconv.ParseInt(n, 10, 32)
		if err != nil || k < 0 {
			return fmt.Errorf("%q is not a number of days", s)
		}
		*d = days(time.Duration(k) * 24 * time.Hour)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("it takes a duration such as 8760h, or days such as 365d")
	}
	*d = days(v)
	return nil
}

// clientOptions are the settings of the one outbound HTTP client.
func (c *Config) clientOptions() fetch.ClientOptions {
	// A product token has no spaces: a development build says "dev".
	v := release()
	if v == "" {
		v = "dev"
	}
	return fetch.ClientOptions{
		MinHostDelay: c.HostDelay,
		UserAgent:    fmt.Sprintf("tidings/%s (+%s)", v, c.BaseURL),
		MaxBody:      c.MaxBody,
		AllowPrivate: c.AllowPrivate,
	}
}

// harvestOptions are the settings of the harvester.
func (c *Config) harvestOptions(log *slog.Logger) harvest.Options {
	return harvest.Options{
		InitialWindow: c.InitialWindow,
		Interval:      c.Interval,
		Logger:        log,

		DiscoveryInterval: c.Discovery,
		SiteTimeout:       c.SiteTimeout,
		MaxDocuments:      c.MaxDocuments,
		MaxChanges:        c.MaxChanges,
		RuleBudget:        c.RuleBudget,
		MaxSiteBytes:      c.MaxSiteBytes,

		DiscoveryDocTimeout: c.DiscoveryDoc,
		Sources:             c.Sources,
		Snapshots:           c.Snapshots,
		// A follow answers with the change information; the pages it
		// names are read by the harvest the scheduler runs next.
		ReadPagesLater: true,
	}
}

// envName maps a flag name to its environment variable:
// strict-datetime -> TIDINGS_STRICT_DATETIME.
func envName(flagName string) string {
	return "TIDINGS_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// invocationFlags say what one command run should do rather than how
// tidings is set up, so no environment variable stands for them: a
// TIDINGS_SITE left in the environment must not narrow every harvest.
var invocationFlags = map[string]bool{"all": true, "site": true, "json": true, "collection": true, "user": true, "from": true, "demo": true, "entries": true,
	"text": true, "css": true, "remove": true,
	"now": true, "email": true, "every": true, "push": true, "no-push": true, "push-secret": true, "to": true}

// parseInterspersed is parseFlags for a command that names its
// arguments apart: it returns them.
func parseInterspersed(fs *flag.FlagSet, args []string, getenv func(string) string) ([]string, error) {
	if err := parseFlags(fs, args, getenv); err != nil {
		return nil, err
	}
	return fs.Args(), nil
}

// parseFlags parses args, flags before, after or between the arguments
// ("check URL --allow-private-addresses"; "--" ends the flags), then fills
// every setting not given on the command line from its environment
// variable. fs.Args() are the arguments alone afterwards.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	out := fs.Output()
	// The flag package would print its own message and the whole help
	// for a mistake; the one sentence of flagError says it instead.
	fs.SetOutput(io.Discard)
	defer fs.SetOutput(out)
	fs.Usage = func() {}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usageOf(fs, out)
				return err
			}
			return usageError{flagError(fs, err)}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Parsed once more, so that fs.Args() are the arguments alone.
	if err := fs.Parse(append([]string{"--"}, positional...)); err != nil {
		return usageError{flagError(fs, err)}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || invocationFlags[f.Name] {
			return
		}
		v := getenv(envName(f.Name))
		if v == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %v", envName(f.Name), v, err))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return usageError{err.Error()}
	}
	return nil
}

// noArguments refuses arguments to a command that takes flags only: a
// word left over is most likely a flag's value without its flag.
func noArguments(fs *flag.FlagSet) error {
	if fs.NArg() == 0 {
		return nil
	}
	cmd := commandName(fs)
	return usageError{fmt.Sprintf("%s takes flags only, not %q; tidings %s --help lists its flags", cmd, fs.Arg(0), cmd)}
}

// The messages of the flag package, read back to be said again in
// tidings' words.
var (
	flagUnknown  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagNeedsArg = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	flagBadValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-+([^:]*): (.*)$`)
	flagSyntax   = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError says what was wrong with the command line, and what to do,
// in one sentence.
func flagError(fs *flag.FlagSet, err error) string {
	cmd := commandName(fs)
	help := fmt.Sprintf("tidings %s --help lists its flags", cmd)
	msg := err.Error()
	if m := flagUnknown.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s has no flag --%s; %s", cmd, m[1], help)
	}
	if m := flagNeedsArg.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s needs a value, as in --%s VALUE; %s", m[1], m[1], help)
	}
	if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s does not take %q: %s; %s", m[2], m[1], valueKind(fs.Lookup(m[2]), m[3]), help)
	}
	if m := flagSyntax.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s is not a flag tidings can read: write flags as --name or --name=value; %s", m[1], help)
	}
	return msg + "; " + help
}

// valueKind says what a flag takes, for a value it refused with why.
func valueKind(f *flag.Flag, why string) string {
	if f != nil {
		switch fmt.Sprintf("%T", f.Value) {
		case "*flag.intValue", "*flag.int64Value", "*flag.uintValue", "*flag.uint64Value":
			return "it takes a whole number"
		case "*flag.durationValue":
			return "it takes a duration such as 90s, 15m or 24h"
		case "*flag.boolValue":
			return "it takes true or false"
		}
	}
	return why
}

// commandName is the command a flag set is for, without its usage:
// "export changes" of "export changes [--site URL] [--collection ID]".
func commandName(fs *flag.FlagSet) string {
	var words []string
	for _, w := range strings.Fields(fs.Name()) {
		if w != strings.ToLower(w) || strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

func usageOf(fs *flag.FlagSet, out io.Writer) {
	fmt.Fprintf(out, "Usage: tidings %s\n\nFlags (each also read from the environment variable shown):\n", fs.Name())
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage == "" {
			return // a flag the command does not use, read for the environment's sake
		}
		if invocationFlags[f.Name] {
			fmt.Fprintf(out, "  --%s\n    \t%s", f.Name, f.Usage)
		} else {
			fmt.Fprintf(out, "  --%s (%s)\n    \t%s", f.Name, envName(f.Name), f.Usage)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(out, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(out)
	})
}

// validate checks the settings the command registered, once, and fills
// derived defaults.
func (c *Config) validate() error {
	if c.DB == "" {
		return errors.New("--db must name a file")
	}
	switch c.LogFormat {
	case "":
		c.LogFormat = "text"
	case "text", "json":
	default:
		return fmt.Errorf("--log-format must be text or json, not %q", c.LogFormat)
	}
	if c.groups&groupAddress != 0 {
		if err := c.validateAddress(); err != nil {
			return err
		}
	}
	if c.groups&groupHarvest != 0 {
		return c.validateHarvest()
	}
	return nil
}

// validateAddress checks the settings addressFlags registers.
func (c *Config) validateAddress() error {
	if c.Addr == "" {
		c.Addr = defaultAddr
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("--addr %q is not host:port", c.Addr)
	}
	c.baseURLGiven = c.BaseURL != ""
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr + "/"
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--base-url %q is not an http or https URL", c.BaseURL)
	}
	if !strings.HasSuffix(c.BaseURL, "/") {
		c.BaseURL += "/"
	}
	return nil
}

// validateHarvest checks the settings harvestFlags registers.
func (c *Config) validateHarvest() error {
	if c.InitialWindow < 0 || c.Interval <= 0 || c.Discovery <= 0 || c.MaxBody <= 0 {
		return errors.New("--initial-window, --interval, --discovery-interval and --max-body must be positive")
	}
	if c.MaxChanges <= 0 {
		return fmt.Errorf("--max-changes must be positive, not %d", c.MaxChanges)
	}
	// Zero would silently mean the default: --no-snapshots says "none".
	if c.Snapshots.PageFetches <= 0 || c.Snapshots.MaxText <= 0 || c.Snapshots.MaxBody <= 0 {
		return errors.New("--page-fetches, --snapshot-max-text and --snapshot-max-body must be positive (--no-snapshots turns page snapshots off)")
	}
	return c.Sources.Validate()
}

// validateFeeds checks the settings feedFlags registers.
func (c *Config) validateFeeds() error {
	if c.FeedEntries < 1 || c.FeedEntries > maxFeedEntries {
		return fmt.Errorf("--feed-entries must be between 1 and %d, not %d", maxFeedEntries, c.FeedEntries)
	}
	return c.validateWebSub()
}

// validateWebSub checks the settings websubFlags registers.
func (c *Config) validateWebSub() error {
	if c.FailingAfter <= 0 {
		return fmt.Errorf("--failing-after must be positive, not %s", c.FailingAfter)
	}
	if c.WebSubHub != "" {
		u, err := url.Parse(c.WebSubHub)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--websub-hub %q is not an http or https URL", c.WebSubHub)
		}
	}
	return nil
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
