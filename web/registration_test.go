package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"tidings/accounts"
)

// TestPagesSayTheRegistrationMode: the home page, the sign-in page and the
// admin page say the same thing of who may sign up, and the admin is
// offered invite links only where they work.
func TestPagesSayTheRegistrationMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode                     string
		home, signin, admin      string
		inviteButton             bool
		inviteCode               int
		homeAbsent, signinAbsent string
	}{
		{accounts.RegistrationClosed, "Accounts here are closed to sign-up", "ask the operator of this tidings to create one",
			"Registration is <strong>closed</strong>: nobody can sign up here", false, http.StatusConflict, "invitation", "invite link"},
		{accounts.RegistrationInvite, "Accounts here are made by invitation.", "ask the admin of this tidings for an invite link",
			"Registration is <strong>by invitation</strong>", true, http.StatusSeeOther, "closed", "closed"},
		{accounts.RegistrationOpen, `href="` + testBase + `signup">Sign up</a>`, `href="` + testBase + `signup">Create one</a>`,
			"Registration is <strong>open</strong>: anyone can create an account", true, http.StatusSeeOther, "invitation", "invite link"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			a := newUIApp(t, nil, Options{Registration: tc.mode})
			root, err := a.store.CreateFirstUser(t.Context(), "root", "x", accounts.NewToken())
			if err != nil {
				t.Fatal(err)
			}
			session := accounts.NewToken()
			if err := a.store.CreateSession(t.Context(), accounts.HashToken(session), root.ID, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			visitor := a.client(t, "192.0.2.20")
			for page, want := range map[string][2]string{"/": {tc.home, tc.homeAbsent}, "/signin": {tc.signin, tc.signinAbsent}} {
				body := visitor.get(page).Body.String()
				if !strings.Contains(body, want[0]) {
					t.Errorf("%s lacks %q:\n%s", page, want[0], mainOf(body))
				}
				if strings.Contains(mainOf(body), want[1]) {
					t.Errorf("%s speaks of %q:\n%s", page, want[1], mainOf(body))
				}
			}
			admin := a.signedIn(t, session)
			body := admin.get("/admin").Body.String()
			if !strings.Contains(body, tc.admin) {
				t.Errorf("/admin lacks %q:\n%s", tc.admin, mainOf(body))
			}
			if got := strings.Contains(body, "Create an invite link"); got != tc.inviteButton {
				t.Errorf("/admin offers an invite link: %v, want %v", got, tc.inviteButton)
			}
			if rec := admin.post("/admin/invites", nil); rec.Code != tc.inviteCode {
				t.Errorf("POST /admin/invites: %d, want %d\n%s", rec.Code, tc.inviteCode, rec.Body)
			}
			invites, err := a.store.Invites(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1}[tc.inviteButton]; len(invites) != want {
				t.Errorf("%d invites stored, want %d", len(invites), want)
			}
		})
	}
}

// TestClosedRegistrationWithNoAccount: a closed tidings with no account
// does not offer to create the first one, which sign-up would refuse.
func TestClosedRegistrationWithNoAccount(t *testing.T) {
	t.Parallel()
	a := newUIApp(t, nil, Options{Registration: accounts.RegistrationClosed})
	body := a.client(t, "192.0.2.21").get("/").Body.String()
	if strings.Contains(body, "Create the first account") || !strings.Contains(body, "tidings user add NAME") {
		t.Errorf("the home page of a closed tidings without accounts:\n%s", mainOf(body))
	}
}

// mainOf is the <main> of a page: what it says, without the navigation.
func mainOf(body string) string {
	_, rest, _ := strings.Cut(body, "<main>")
	main, _, _ := strings.Cut(rest, "</main>")
	return main
}
