package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"tidings/db"
	"tidings/fetch"
	"tidings/notify"
)

// notifyTick is how often serve sends what is due.
const notifyTick = time.Minute

// notifyFlags registers the operator's e-mail settings: serve, notify and
// user notify.
func notifyFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.SMTPURL, "smtp-url", "", "SMTP server for e-mail: smtp://user:pass@host:587 (STARTTLS), smtps://user:pass@host:465, smtp://host:port (a relay, no auth); none turns e-mail off")
	fs.StringVar(&c.MailFrom, "mail-from", "", "sender address of tidings' e-mail, such as tidings@example.org")
}

// allowPrivateFlag registers the address policy's switch alone, for the
// commands that send but do not harvest.
func allowPrivateFlag(fs *flag.FlagSet, c *Config) {
	fs.BoolVar(&c.AllowPrivate, "allow-private-addresses", false, "allow pushes and webhooks to loopback, private and link-local addresses")
}

// allowLoopbackFlag registers the operator's consent to messages whose
// links lead to loopback, for the commands that write messages.
func allowLoopbackFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("allow-loopback-base-url", false, "let messages link to a --base-url on loopback (localhost, 127.0.0.1, ::1), for readers on this machine only")
}

// checkLinkBase refuses to write messages whose links cannot be right
// (see linkBaseProblem), unless the only trouble is loopback and
// allowLoopback. The default base URL, made of --addr, is one of them: a
// digest is read elsewhere, and a link in it, List-Unsubscribe included,
// must lead back here. what says what is not done, as the start of a
// sentence.
func (a *app) checkLinkBase(what string, allowLoopback bool) error {
	why, loopback := linkBaseProblem(a.cfg.BaseURL)
	if why == "" || loopback && allowLoopback {
		return nil
	}
	from := ""
	if a.guessedURL {
		from = " (no --base-url was given here or to serve, so it is made of --addr, where serve listens)"
	}
	fix := "Give the address readers reach this tidings at with --base-url (TIDINGS_BASE_URL), here or once to serve"
	if loopback {
		fix += "; or, if every reader is on this machine, pass --allow-loopback-base-url"
	}
	return usageError{fmt.Sprintf("%s: the links in messages would start with %s, %s%s. %s.", what, a.cfg.BaseURL, why, from, fix)}
}

// linkBaseProblem says why links under base cannot lead a reader back
// here, or "" when they may: no host; an unspecified address (0.0.0.0,
// ::), which a server listens on and no reader can open; loopback, which
// only this machine reaches (loopback then says that is the trouble).
func linkBaseProblem(base string) (why string, loopback bool) {
	host := ""
	if u, err := url.Parse(base); err == nil {
		host = u.Hostname()
	}
	ip, _ := netip.ParseAddr(host)
	switch ip = ip.Unmap(); {
	case host == "":
		return "which names no host", false
	case ip.IsUnspecified():
		return "an address to listen on that no reader can open", false
	case ip.IsLoopback(), isLocalhost(host):
		return "which only this machine reaches", true
	}
	return "", false
}

// isLocalhost tells the names that always mean loopback (RFC 6761).
func isLocalhost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// newNotifier builds the notifier over the app's store, sending through
// client.
func (a *app) newNotifier(client *fetch.Client) (*notify.Notifier, error) {
	n, err := notify.New(a.store, notify.Options{
		BaseURL: a.cfg.BaseURL, SMTPURL: a.cfg.SMTPURL, MailFrom: a.cfg.MailFrom, Client: client, Logger: a.log,
	})
	if err != nil {
		return nil, usageError{strings.TrimPrefix(err.Error(), "notify: ")}
	}
	return n, nil
}

func cmdNotify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var cfg Config
	fs := newFlagSet("notify [--now]", stderr)
	storeFlags(fs, &cfg)
	baseURLFlag(fs, &cfg)
	notifyFlags(fs, &cfg)
	allowPrivateFlag(fs, &cfg)
	allowLoopback := allowLoopbackFlag(fs)
	now := fs.Bool("now", false, "send every person's digest of what is new since their last one, whatever their schedule")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := noArguments(fs); err != nil {
		return err
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	if err := a.checkLinkBase("nothing was sent", *allowLoopback); err != nil {
		return err
	}
	n, err := a.newNotifier(fetch.NewClient(a.cfg.clientOptions()))
	if err != nil {
		return err
	}
	if !n.EmailOn() {
		fmt.Fprintln(stdout, "E-mail is off: no --smtp-url (TIDINGS_SMTP_URL) is set, so no digest is sent.")
	}
	rep, err := n.Run(ctx, notify.RunOptions{AllDigests: *now})
	fmt.Fprintf(stdout, "Queued %d digest(s) and %d push(es); sent %d message(s), %d to try again later, %d given up, %d held back by a rate limit.\n",
		rep.Digests, rep.Pushes, rep.Sent, rep.Retried, rep.Failed, rep.Waiting)
	return err
}

// stringList is a flag given once per value.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func cmdUserNotify(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	const usage = "usage: tidings user notify NAME [--email ADDR] [--every daily|weekly|off] [--push URL]... [--no-push URL] [--push-secret SECRET]"
	var cfg Config
	fs := newFlagSet("user notify NAME [--email ADDR] [--every daily|weekly|off] [--push URL]... [--no-push URL] [--push-secret SECRET]", stderr)
	storeFlags(fs, &cfg)
	baseURLFlag(fs, &cfg)
	notifyFlags(fs, &cfg)
	allowPrivateFlag(fs, &cfg)
	allowLoopback := allowLoopbackFlag(fs)
	email := fs.String("email", "", `the address to send the digest to, once confirmed by the link sent there; "none" removes it`)
	every := fs.String("every", "", "how often the digest is sent: daily, weekly or off")
	var push, noPush stringList
	fs.Var(&push, "push", "a notification URL (ntfy://…, discord://…, generic+https://host/path) told of every harvest that changes what the person follows")
	fs.Var(&noPush, "no-push", "a notification URL to stop sending to")
	secret := fs.String("push-secret", "", `the secret generic webhooks are signed with (HMAC-SHA256 in the X-Tidings-Signature header); "none" removes it`)
	// NAME comes first, as in every user command; flags follow it.
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if name == "" || fs.NArg() > 0 {
		return usageError{usage}
	}
	a, err := openApp(ctx, cfg, stderr, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer a.store.Close()
	u, err := a.userNamed(ctx, name)
	if err != nil {
		return err
	}
	n, err := a.newNotifier(fetch.NewClient(a.cfg.clientOptions()))
	if err != nil {
		return err
	}
	// The confirmation link is written now, and sent later.
	if *email != "" && *email != "none" && n.EmailOn() {
		if err := a.checkLinkBase("no confirmation link was queued", *allowLoopback); err != nil {
			return err
		}
	}
	if err := a.changeNotify(ctx, n, u, *email, *every, push, noPush, *secret, stdout); err != nil {
		return err
	}
	v, err := n.Settings(ctx, u.ID)
	if err != nil {
		return err
	}
	printNotify(stdout, v)
	return nil
}

// changeNotify applies what user notify was asked, saying what it did.
func (a *app) changeNotify(ctx context.Context, n *notify.Notifier, u db.User, email, every string, push, noPush []string, secret string, stdout io.Writer) error {
	if every != "" {
		if err := n.SetEvery(ctx, u.ID, every); err != nil {
			return usageError{err.Error()}
		}
	}
	switch email {
	case "":
	case "none":
		if err := n.RequestEmail(ctx, u, ""); err != nil {
			return err
		}
	default:
		if err := n.RequestEmail(ctx, u, email); errors.Is(err, notify.ErrEmailOff) {
			return fmt.Errorf("e-mail is off: give the SMTP server with --smtp-url (TIDINGS_SMTP_URL) and the sender with --mail-from (TIDINGS_MAIL_FROM)")
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "A confirmation link is queued for %s; serve or tidings notify sends it, and digests go there once it is followed.\n", email)
	}
	switch secret {
	case "":
	case "none":
		if err := n.SetPushSecret(ctx, u.ID, ""); err != nil {
			return err
		}
	default:
		if err := n.SetPushSecret(ctx, u.ID, secret); err != nil {
			return usageError{err.Error()}
		}
	}
	for _, p := range noPush {
		k, err := n.RemovePush(ctx, u.ID, 0, p)
		if err != nil {
			return err
		}
		if k == 0 {
			return fmt.Errorf("%s has no push to %s", u.Name, p)
		}
	}
	for _, p := range push {
		if _, err := n.AddPush(ctx, u.ID, p, 0); err != nil && !errors.Is(err, notify.ErrPushExists) {
			return err
		}
	}
	return nil
}

// printNotify says a person's notification settings.
func printNotify(w io.Writer, v notify.View) {
	out := newTermWriter(w)
	switch {
	case v.Email == "":
		fmt.Fprintf(out, "%s: no e-mail digest\n", v.UserName)
	default:
		fmt.Fprintf(out, "%s: e-mail digest to %s, %s\n", v.UserName, v.Email, v.Every)
	}
	if v.PendingEmail != "" && v.ConfirmUntil != nil {
		fmt.Fprintf(out, "  waiting for confirmation: %s (the link works until %s)\n", v.PendingEmail, v.ConfirmUntil.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if !v.EmailOn {
		fmt.Fprintln(out, "  e-mail is off on this tidings (no --smtp-url)")
	}
	for _, t := range v.Targets {
		scope := "everything followed"
		if t.SiteID != 0 {
			scope = t.SiteTitle
		}
		fmt.Fprintf(out, "  push: %s (%s)\n", t.URL, scope)
	}
	if v.PushSecret != "" {
		fmt.Fprintln(out, "  webhooks are signed with the push secret")
	}
	for _, m := range v.Trouble {
		state := "will be tried again"
		if m.FailedAt != nil {
			state = "given up"
		}
		fmt.Fprintf(out, "  not sent (%s): %s to %s: %s\n", state, m.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), m.Address, m.Error)
	}
}
