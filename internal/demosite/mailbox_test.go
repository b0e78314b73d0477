package demosite

import (
	"net/http"
	"net/smtp"
	"strings"
	"testing"
)

// TestMailboxReceives: an e-mail sent to the mailbox's SMTP server is
// kept as a mail client shows it, its encoded subject, its
// quoted-printable text and base64 HTML decoded; a push posted as ntfy
// takes it is kept with its title; the newest comes first.
func TestMailboxReceives(t *testing.T) {
	mb, err := StartMailbox()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mb.Close)
	addr := strings.TrimPrefix(mb.SMTPURL(), "smtp://")
	msg := "From: tidings <tidings@localhost>\r\nTo: demo@localhost\r\nSubject: =?utf-8?q?3_changes_on_Caf=C3=A9?=\r\n" +
		"Date: Sat, 28 Nov 2026 15:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nRemoved: caf=C3=A9 =\r\nclosed\r\n" +
		"--b\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\nPHA+QWRkZWQ6IDxpbnM+b3BlbjwvaW5zPjwvcD4=\r\n--b--\r\n"
	if err := smtp.SendMail(addr, nil, "tidings@localhost", []string{"demo@localhost"}, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	push := strings.TrimSuffix(strings.TrimPrefix(mb.PushURL(), "ntfy://"), "?scheme=http")
	req, _ := http.NewRequest(http.MethodPost, "http://"+push, strings.NewReader("- Tide tables (updated)"))
	req.Header.Set("Title", "Paper Boat Almanac: 1 page changed")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	got := mb.Messages()
	if len(got) != 2 {
		t.Fatalf("%d messages, want 2: %+v", len(got), got)
	}
	p, m := got[0], got[1]
	if !p.Push || p.Subject != "Paper Boat Almanac: 1 page changed" || p.Text != "- Tide tables (updated)" || p.ID != 2 {
		t.Errorf("the push: %+v", p)
	}
	if m.Push || m.ID != 1 || m.From != "tidings <tidings@localhost>" || m.To != "demo@localhost" || m.Subject != "3 changes on Café" ||
		strings.TrimSpace(m.Text) != "Removed: café closed" || m.HTML != "<p>Added: <ins>open</ins></p>" || m.Date.IsZero() {
		t.Errorf("the e-mail: %+v", m)
	}
}

// TestMailboxKeepsTheNewest: past maxMessages, the oldest go.
func TestMailboxKeepsTheNewest(t *testing.T) {
	mb := &Mailbox{}
	for i := range maxMessages + 5 {
		mb.keep(Message{Push: true, Subject: strings.Repeat("x", i)})
	}
	got := mb.Messages()
	if len(got) != maxMessages || got[0].ID != maxMessages+5 || got[len(got)-1].ID != 6 {
		t.Errorf("%d messages kept, newest %d, oldest %d; want %d, %d and 6", len(got), got[0].ID, got[len(got)-1].ID, maxMessages, maxMessages+5)
	}
}
