package web_test

import (
	"testing"

	"tidings/accounts"
)

// TestBrowserClosedRegistration: with registration closed, the home page
// says accounts are closed to sign-up, and the admin page says how
// accounts are made instead of offering invite links that would not work.
func TestBrowserClosedRegistration(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	execPath := findBrowser(t)
	app := startBrowserAppWith(t, accounts.RegistrationClosed)
	const password = "root has a long password"
	hash, err := accounts.HashPassword(password)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.store.CreateFirstUser(t.Context(), "root", hash, accounts.NewToken()); err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, execPath)

	b.navigate(app.base)
	b.expectText("main", "Accounts here are closed to sign-up")
	if got := b.eval(`String(document.querySelectorAll('a[href$="/signup"]').length)`); got != "0" {
		t.Errorf("the home page links to sign-up %s times", got)
	}
	b.clickLink("Sign in")
	b.expectText("main", "Accounts here are closed to sign-up")
	b.fill("Name", "root")
	b.fill("Password", password)
	b.submit("Sign in")
	b.clickLink("Admin")
	b.expectText("#registration", "Registration is closed: nobody can sign up here")
	b.expectText("#registration", "tidings user add NAME")
	if got := b.eval(`String([...document.querySelectorAll("button")].some(e => e.textContent.includes("invite")))`); got != "false" {
		t.Error("the admin page offers an invite link while registration is closed")
	}
	b.checkConsole()
}
