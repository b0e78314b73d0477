package demosite

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// The bounds of the mailbox: a demo left running keeps its newest
// messages only, and no message is larger than a digest can be.
const (
	maxMessages    = 100
	maxMessageSize = 1 << 20
	maxPushSize    = 64 << 10
)

// Message is one message the demo's mailbox received: an e-mail through
// its SMTP server, or a push through its ntfy-like endpoint.
type Message struct {
	ID       int  // in the order received, from 1
	Push     bool // a push, not an e-mail
	From     string
	To       string
	Subject  string // a push's title
	Date     time.Time
	Text     string // the text part, decoded; a push's message
	HTML     string // the HTML part, decoded; "" for none
	Received time.Time
}

// Mailbox is an SMTP server and a push receiver on loopback that keep
// what they are sent, for the demo to show: the demo's digests and
// pushes reach a person in the first minute without a mail server.
type Mailbox struct {
	smtp    *smtp.Server
	smtpLn  net.Listener
	push    *http.Server
	pushURL string

	mu   sync.Mutex
	msgs []Message
	seq  int
}

// StartMailbox starts the mailbox's SMTP server and push receiver, each
// on a port of its own on 127.0.0.1.
func StartMailbox() (*Mailbox, error) {
	mb := &Mailbox{}
	sln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demosite: the mailbox's SMTP server: %w", err)
	}
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sln.Close()
		return nil, fmt.Errorf("demosite: the mailbox's push receiver: %w", err)
	}
	mb.smtp = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{mb: mb}, nil }))
	mb.smtp.Domain = "localhost"
	mb.smtp.MaxMessageBytes = maxMessageSize
	mb.smtp.MaxRecipients = 10
	mb.smtp.ReadTimeout, mb.smtp.WriteTimeout = 30*time.Second, 30*time.Second
	mb.smtpLn = sln
	mb.push = &http.Server{Handler: http.HandlerFunc(mb.receivePush), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	mb.pushURL = "ntfy://" + pln.Addr().String() + "/tidings-demo?scheme=http"
	go mb.smtp.Serve(sln)
	go mb.push.Serve(pln)
	return mb, nil
}

// SMTPURL is the address tidings sends e-mail to (no TLS, no password:
// it is on loopback).
func (mb *Mailbox) SMTPURL() string { return "smtp://" + mb.smtpLn.Addr().String() }

// PushURL is a notification URL, as a person gives tidings one, that
// pushes to the mailbox.
func (mb *Mailbox) PushURL() string { return mb.pushURL }

// Messages returns what the mailbox received, newest first.
func (mb *Mailbox) Messages() []Message {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	out := make([]Message, len(mb.msgs))
	for i, m := range mb.msgs {
		out[len(mb.msgs)-1-i] = m
	}
	return out
}

// Close stops the SMTP server and the push receiver.
func (mb *Mailbox) Close() {
	mb.smtp.Close()
	mb.push.Close()
}

// keep adds m, dropping the oldest beyond maxMessages.
func (mb *Mailbox) keep(m Message) {
	m.Received = time.Now()
	mb.mu.Lock()
	defer mb.mu.Unlock()
	mb.seq++
	m.ID = mb.seq
	mb.msgs = append(mb.msgs, m)
	if len(mb.msgs) > maxMessages {
		mb.msgs = append(mb.msgs[:0:0], mb.msgs[len(mb.msgs)-maxMessages:]...)
	}
}

// receivePush takes a push as ntfy does: POST /topic, the message as the
// body, its title in the Title header.
func (mb *Mailbox) receivePush(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && r.Method != http.MethodPut {
		http.Error(w, "pushes are posted", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPushSize))
	if err != nil {
		http.Error(w, "the push is too large", http.StatusRequestEntityTooLarge)
		return
	}
	title := r.Header.Get("Title")
	if title == "" {
		title = r.Header.Get("X-Title")
	}
	mb.keep(Message{Push: true, From: "tidings", To: "the ntfy topic " + strings.TrimPrefix(r.URL.Path, "/"), Subject: title, Date: time.Now(), Text: string(body)})
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"id":"demo","event":"message"}`)
}

// session is one SMTP conversation.
type session struct {
	mb *Mailbox
	to []string
}

func (s *session) Reset()                                    { s.to = nil }
func (s *session) Logout() error                             { return nil }
func (s *session) Mail(string, *smtp.MailOptions) error      { return nil }
func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error { s.to = append(s.to, to); return nil }

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(io.LimitReader(r, maxMessageSize+1))
	if err != nil {
		return err
	}
	if len(raw) > maxMessageSize {
		return &smtp.SMTPError{Code: 552, EnhancedCode: smtp.EnhancedCode{5, 3, 4}, Message: "message too large"}
	}
	m, err := readMessage(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "unreadable message"}
	}
	if m.To == "" {
		m.To = strings.Join(s.to, ", ")
	}
	s.mb.keep(m)
	return nil
}

// readMessage reads an e-mail as a mail client shows it: its headers
// decoded, its text and HTML parts.
func readMessage(raw []byte) (Message, error) {
	pm, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	var dec mime.WordDecoder
	header := func(k string) string {
		v := pm.Header.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			return d
		}
		return v
	}
	m := Message{From: addresses(header("From")), To: addresses(header("To")), Subject: header("Subject")}
	m.Date, _ = pm.Header.Date()
	readPart(&m, pm.Header.Get("Content-Type"), pm.Header.Get("Content-Transfer-Encoding"), pm.Body, 0)
	return m, nil
}

// addresses writes a header's addresses as a mail client shows them:
// "Ann <ann@example.org>", or the address alone when it has no name.
func addresses(v string) string {
	list, err := mail.ParseAddressList(v)
	if err != nil {
		return v
	}
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.Address
		if a.Name != "" {
			out[i] = a.Name + " <" + a.Address + ">"
		}
	}
	return strings.Join(out, ", ")
}

// readPart decodes a part, or a whole message, into m's Text or HTML;
// depth bounds the nesting of multiparts.
func readPart(m *Message, ctype, encoding string, body io.Reader, depth int) {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		mt = "text/plain"
	}
	if strings.HasPrefix(mt, "multipart/") {
		if depth > 3 {
			return
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return
			}
			// NextPart decodes quoted-printable itself.
			readPart(m, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, depth+1)
		}
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, _ := io.ReadAll(body)
	switch mt {
	case "text/plain":
		if m.Text == "" {
			m.Text = string(b)
		}
	case "text/html":
		if m.HTML == "" {
			m.HTML = string(b)
		}
	}
}
