package notify_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"tidings/accounts"
	"tidings/db"
	"tidings/fetch"
	"tidings/harvest"
	_ "tidings/harvest/sources"
	"tidings/internal/demosite"
	"tidings/internal/harvesttest"
	"tidings/notify"
)

// received is one e-mail as the test's SMTP server got it.
type received struct {
	To     []string
	Header mail.Header
	Raw    []byte
	Text   string // the text/plain part, decoded
	HTML   string // the text/html part, decoded
}

// mailbox is an SMTP server on loopback that keeps what it receives.
type mailbox struct {
	mu   sync.Mutex
	msgs []received
	Addr string
}

func startSMTP(t *testing.T) *mailbox {
	t.Helper()
	mb := &mailbox{}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{mb: mb}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mb.Addr = ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return mb
}

// To returns the messages sent to addr.
func (mb *mailbox) To(addr string) []received {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	var out []received
	for _, m := range mb.msgs {
		for _, to := range m.To {
			if to == addr {
				out = append(out, m)
			}
		}
	}
	return out
}

type session struct {
	mb *mailbox
	to []string
}

func (s *session) Reset()        { s.to = nil }
func (s *session) Logout() error { return nil }
func (s *session) Mail(string, *smtp.MailOptions) error {
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	rec := received{To: s.to, Header: m.Header, Raw: raw}
	readPart(&rec, m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Body)
	s.mb.mu.Lock()
	s.mb.msgs = append(s.mb.msgs, rec)
	s.mb.mu.Unlock()
	return nil
}

// readPart decodes a part (or a whole message) into rec's Text or HTML,
// as a mail client would.
func readPart(rec *received, ctype, encoding string, body io.Reader) {
	mt, params, _ := mime.ParseMediaType(ctype)
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return
			}
			// NextPart decodes quoted-printable itself.
			readPart(rec, p.Header.Get("Content-Type"), "", p)
		}
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, _ := io.ReadAll(body)
	switch mt {
	case "text/plain":
		rec.Text = string(b)
	case "text/html":
		rec.HTML = string(b)
	}
}

// env is a harvester, a notifier sending to a test SMTP server, and the
// demo's sample sites, on one clock the test moves.
type env struct {
	t      *testing.T
	ctx    context.Context
	store  *db.DB
	h      *harvest.Harvester
	sites  *demosite.Sites
	mail   *mailbox
	client *fetch.Client
	n      *notify.Notifier

	mu  sync.Mutex
	now time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background(), now: time.Now().UTC()}
	sites, err := demosite.Start(e.now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sites.Close)
	e.sites = sites
	e.store, e.h = harvesttest.New(t, harvest.Options{})
	e.mail = startSMTP(t)
	e.client = fetch.NewClient(fetch.ClientOptions{UserAgent: "tidings/test", AllowPrivate: true})
	e.n, err = notify.New(e.store, notify.Options{
		BaseURL: "http://tidings.test/", SMTPURL: "smtp://" + e.mail.Addr, MailFrom: "tidings@tidings.test",
		Client: e.client, Now: e.clock, SendTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

// advance moves the notifier's clock.
func (e *env) advance(d time.Duration) {
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
}

// follow makes a person who follows the sample site of kind k.
func (e *env) person(name string, kinds ...demosite.Kind) db.User {
	e.t.Helper()
	u, err := e.store.CreateUser(e.ctx, name, "x", accounts.NewToken(), "")
	if err != nil {
		e.t.Fatal(err)
	}
	for _, k := range kinds {
		root := e.sites.Of(k).URL + "/"
		id, err := e.store.SiteByURL(e.ctx, root)
		if err != nil {
			id = harvesttest.Follow(e.t, e.h, root).Site
		}
		if err := e.store.Follow(e.ctx, u.ID, id.ID); err != nil && err != db.ErrAlreadyExists {
			e.t.Fatal(err)
		}
	}
	return u
}

// run runs the notifier once, failing the test on an error.
func (e *env) run(o notify.RunOptions) notify.Report {
	e.t.Helper()
	rep, err := e.n.Run(e.ctx, o)
	if err != nil {
		e.t.Fatalf("Run: %v", err)
	}
	return rep
}

var linkRE = regexp.MustCompile(`http://tidings\.test/notify/confirm\?t=[A-Za-z0-9_%-]+`)

// subscribe gives a person the address addr, confirmed by the link the
// test SMTP server received.
func (e *env) subscribe(u db.User, addr string) {
	e.t.Helper()
	if err := e.n.RequestEmail(e.ctx, u, addr); err != nil {
		e.t.Fatal(err)
	}
	e.run(notify.RunOptions{})
	got := e.mail.To(addr)
	if len(got) != 1 {
		e.t.Fatalf("%d messages to %s, want the confirmation", len(got), addr)
	}
	link := linkRE.FindString(got[0].Text)
	if link == "" {
		e.t.Fatalf("no confirmation link in:\n%s", got[0].Text)
	}
	token := link[strings.Index(link, "?t=")+3:]
	if _, err := e.n.ConfirmEmail(e.ctx, token); err != nil {
		e.t.Fatalf("confirm %s: %v", addr, err)
	}
}

// harvest changes two pages of the sample site of kind k and harvests it.
func (e *env) change(k demosite.Kind) {
	e.t.Helper()
	s := e.sites.Of(k)
	s.Change(2, time.Now().Add(time.Second))
	rep := harvesttest.HarvestSite(e.t, e.store, e.h, s.URL+"/")
	if rep.Changes() < 2 {
		e.t.Fatalf("harvest of %s found %d changes, want 2 or more: %v", s.Name, rep.Changes(), harvesttest.Warnings(rep))
	}
}
