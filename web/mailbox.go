package web

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// Mail is one message of the demo's mailbox: an e-mail, or a push.
type Mail struct {
	ID       int
	Push     bool
	From     string
	To       string
	Subject  string
	Date     time.Time
	Text     string
	HTML     string
	Received time.Time
}

// mailboxData is what the mailbox page shows.
type mailboxData struct {
	Mail []mailView
}

// mailView is one message on the page; Open: shown unfolded, the newest
// e-mail and the newest push.
type mailView struct {
	Mail
	Open bool
}

// refresh reloads the page while the demo runs: new mail arrives on
// its own, as in a mail client.
func (mailboxData) refresh() int { return 30 }

// mailboxPage lists what the demo's mailbox received, newest first, as
// a mail client shows it: who from, to whom, the subject and the text.
func (s *Server) mailboxPage(c echo.Context) error {
	var d mailboxData
	seen := map[bool]bool{}
	for _, m := range s.opts.Mailbox() {
		d.Mail = append(d.Mail, mailView{m, !seen[m.Push]})
		seen[m.Push] = true
	}
	return s.render(c, http.StatusOK, "mailbox", "Mailbox", d)
}

// mailboxHTML shows the HTML part of one e-mail alone, sandboxed: it
// runs nothing and loads nothing, as a careful mail client shows one.
func (s *Server) mailboxHTML(c echo.Context) error {
	id, _ := strconv.Atoi(c.Param("id"))
	for _, m := range s.opts.Mailbox() {
		if m.ID == id && m.HTML != "" {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
			return c.HTML(http.StatusOK, m.HTML)
		}
	}
	return echo.NewHTTPError(http.StatusNotFound, "This message is no longer in the mailbox: it keeps the newest 100.")
}
