package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/url"
	"strconv"
	"time"

	"github.com/wneessen/go-mail"
)

// email is an e-mail as the outbox keeps it.
type email struct {
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html,omitempty"`
	// Unsubscribe is the one-click address of RFC 8058, "" for a
	// message that is no digest (an address's confirmation).
	Unsubscribe string `json:"unsubscribe,omitempty"`
}

// mailer sends e-mail through the operator's SMTP server. It is the one
// outbound connection that does not go through fetch: the operator names
// the server (a local relay on loopback, often), nobody else does, so
// the address policy, which guards the addresses people give, has no say.
type mailer struct {
	host string
	opts []mail.Option
	from string
}

// newMailer reads an SMTP URL: smtp://user:pass@host:587 with STARTTLS
// required, smtps://user:pass@host:465 with implicit TLS, and
// smtp://host:port without a user, for a local relay, without auth and
// with STARTTLS when the server offers it.
func newMailer(raw, from string, timeout time.Duration) (*mailer, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, fmt.Errorf("notify: the SMTP URL %q is not smtp://host:port or smtps://user:password@host:port", redact(raw))
	}
	if from == "" {
		return nil, errors.New("notify: an SMTP URL needs a sender's address (--mail-from)")
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("notify: the sender's address %q (--mail-from) is not an e-mail address", from)
	}
	port := 587
	opts := []mail.Option{mail.WithTimeout(timeout)}
	if u.Scheme == "smtps" {
		port = 465
		opts = append(opts, mail.WithSSL())
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("notify: the SMTP URL's port %q is not a number", p)
		}
	}
	opts = append(opts, mail.WithPort(port))
	if u.User != nil {
		pass, _ := u.User.Password()
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(u.User.Username()), mail.WithPassword(pass))
		if u.Scheme == "smtp" {
			// Credentials never cross the network in the clear.
			opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
		}
	} else if u.Scheme == "smtp" {
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	}
	return &mailer{host: u.Hostname(), opts: opts, from: from}, nil
}

// redact hides the password of an SMTP URL in messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unreadable)"
	}
	return u.Redacted()
}

// send sends one e-mail to to.
func (m *mailer) send(ctx context.Context, to string, e email) error {
	msg := mail.NewMsg()
	if err := msg.From(m.from); err != nil {
		return permanent{fmt.Errorf("the sender's address %s is not valid: %w", m.from, err)}
	}
	if err := msg.To(to); err != nil {
		return permanent{fmt.Errorf("the address %s is not valid", to)}
	}
	msg.Subject(e.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(mail.TypeTextPlain, e.Text)
	if e.HTML != "" {
		msg.AddAlternativeString(mail.TypeTextHTML, e.HTML)
	}
	if e.Unsubscribe != "" {
		msg.SetGenHeaderPreformatted(mail.HeaderListUnsubscribe, "<"+e.Unsubscribe+">")
		msg.SetGenHeaderPreformatted(mail.HeaderListUnsubscribePost, "List-Unsubscribe=One-Click")
	}
	c, err := mail.NewClient(m.host, m.opts...)
	if err != nil {
		return permanent{fmt.Errorf("the mail server is set up wrongly: %w", err)}
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		var se *mail.SendError
		if errors.As(err, &se) && !se.IsTemp() && (se.Reason == mail.ErrSMTPRcptTo || se.Reason == mail.ErrSMTPData || se.Reason == mail.ErrGetRcpts) {
			return permanent{fmt.Errorf("the mail server refused it: %w", err)}
		}
		var ne net.Error
		if errors.As(err, &ne) {
			return fmt.Errorf("the mail server could not be reached: %w", err)
		}
		return fmt.Errorf("the mail server did not take it: %w", err)
	}
	return nil
}

// permanent is a failure that trying again will not mend.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }
