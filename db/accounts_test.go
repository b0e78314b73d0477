package db

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestUserLookups(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "Bob")
	if !ann.Admin || bob.Admin {
		t.Fatalf("admin flags: ann %v, bob %v; want only the first an admin", ann.Admin, bob.Admin)
	}
	if _, err := d.CreateUser(ctx, "cy", "h", "token-ann", ""); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("a feed token already in use: %v, want ErrAlreadyExists", err)
	}

	tests := []struct {
		name   string
		lookup func() (User, error)
		want   int64 // 0: ErrNotFound
	}{
		{"by id", func() (User, error) { return d.UserByID(ctx, bob.ID) }, bob.ID},
		{"by name", func() (User, error) { return d.UserByName(ctx, "ann") }, ann.ID},
		{"by name in another case", func() (User, error) { return d.UserByName(ctx, "BOB") }, bob.ID},
		{"by feed token", func() (User, error) { return d.UserByFeedToken(ctx, "token-Bob") }, bob.ID},
		{"unknown id", func() (User, error) { return d.UserByID(ctx, 999) }, 0},
		{"unknown name", func() (User, error) { return d.UserByName(ctx, "cy") }, 0},
		{"unknown feed token", func() (User, error) { return d.UserByFeedToken(ctx, "token-cy") }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := tt.lookup()
			if tt.want == 0 {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("got %+v, %v; want ErrNotFound", u, err)
				}
				return
			}
			if err != nil || u.ID != tt.want {
				t.Errorf("got %+v, %v; want user %d", u, err, tt.want)
			}
		})
	}

	users, err := d.Users(ctx)
	if err != nil || len(users) != 2 || users[0].Name != "ann" || users[1].Name != "Bob" || users[1].PasswordHash != "hash-Bob" {
		t.Fatalf("users %+v, %v; want ann then Bob", users, err)
	}

	if err := d.SetFeedToken(ctx, bob.ID, "fresh"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.UserByFeedToken(ctx, "token-Bob"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the old feed token still works: %v", err)
	}
	if u, err := d.UserByFeedToken(ctx, "fresh"); err != nil || u.ID != bob.ID {
		t.Errorf("the new feed token: %+v, %v", u, err)
	}
	if err := d.SetFeedToken(ctx, bob.ID, "token-ann"); err == nil {
		t.Error("two users were given one feed token")
	}
	if err := d.DeleteUser(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting an unknown user: %v, want ErrNotFound", err)
	}
}

func TestSessionsEndAndSweep(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	now := time.Now()
	for _, s := range []struct {
		hash    string
		user    User
		expires time.Time
	}{
		{"ann-1", ann, now.Add(time.Hour)},
		{"ann-2", ann, now.Add(time.Hour)},
		{"ann-old", ann, now.Add(-time.Minute)},
		{"bob-1", bob, now.Add(time.Hour)},
	} {
		if err := d.CreateSession(ctx, s.hash, s.user.ID, s.expires); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.CreateSession(ctx, "ann-1", ann.ID, now.Add(time.Hour)); err == nil {
		t.Error("a session token stored twice")
	}
	if err := d.CreateSession(ctx, "ghost", 999, now.Add(time.Hour)); err == nil {
		t.Error("a session of a user who does not exist was stored")
	}

	if err := d.DeleteSession(ctx, "ann-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SessionUser(ctx, "ann-1", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("a deleted session: %v, want ErrNotFound", err)
	}
	if u, err := d.SessionUser(ctx, "ann-2", now); err != nil || u.ID != ann.ID {
		t.Errorf("another session of the same user: %+v, %v", u, err)
	}
	var left int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE token_hash = 'ann-old'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("expired sessions left after a logout: %d, %v; want swept", left, err)
	}

	if err := d.SetPassword(ctx, ann.ID, "new"); err != nil {
		t.Fatal(err)
	}
	if u, err := d.SessionUser(ctx, "bob-1", now); err != nil || u.ID != bob.ID {
		t.Errorf("one user's password change ended another's session: %+v, %v", u, err)
	}
	if u, _ := d.UserByID(ctx, ann.ID); u.PasswordHash != "new" {
		t.Errorf("password hash %q, want new", u.PasswordHash)
	}

	if err := d.DeleteUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SessionUser(ctx, "bob-1", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("a deleted user's session: %v, want ErrNotFound", err)
	}
}

func TestInvitesValidity(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann := testUser(t, d, "ann")
	now := time.Now()
	if err := d.CreateInvite(ctx, "live", ann.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateInvite(ctx, "stale", ann.ID, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateInvite(ctx, "live", ann.ID, now.Add(time.Hour)); err == nil {
		t.Error("an invite token stored twice")
	}

	valid := func(token string) bool {
		t.Helper()
		ok, err := d.InviteValid(ctx, token, now)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !valid("live") || valid("stale") || valid("unknown") {
		t.Errorf("valid: live %v, stale %v, unknown %v; want only live", valid("live"), valid("stale"), valid("unknown"))
	}
	if _, err := d.CreateUser(ctx, "bob", "h", "tb", "stale"); !errors.Is(err, ErrInvalidInvite) {
		t.Errorf("sign-up with an expired invite: %v, want ErrInvalidInvite", err)
	}
	if _, err := d.UserByName(ctx, "bob"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a refused sign-up left its account: %v", err)
	}
	bob, err := d.CreateUser(ctx, "bob", "h", "tb", "live")
	if err != nil {
		t.Fatal(err)
	}
	if valid("live") {
		t.Error("a used invite is still valid")
	}

	// Invites outlive the accounts that made and used them.
	if err := d.DeleteUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	invites, err := d.Invites(ctx)
	if err != nil || len(invites) != 2 {
		t.Fatalf("invites %+v, %v", invites, err)
	}
	stale, live := invites[0], invites[1]
	if stale.Token != "stale" || stale.UsedAt != nil || stale.UsedBy != "" || stale.CreatedBy != "" {
		t.Errorf("newest invite %+v, want the unused stale one without its deleted maker", stale)
	}
	if live.Token != "live" || live.UsedBy != bob.Name || live.UsedAt == nil || !live.ExpiresAt.After(now) {
		t.Errorf("used invite %+v", live)
	}
}

// TestSimultaneousSignUps: of sign-ups racing on a new database, one
// becomes the admin, and without an invite only one gets in at all.
func TestSimultaneousSignUps(t *testing.T) {
	ctx := context.Background()
	for _, first := range []bool{true, false} {
		d, _ := openTest(t)
		errs := make(chan error, 8)
		for i := range cap(errs) {
			go func() {
				name, token := fmt.Sprintf("user%d", i), fmt.Sprintf("token%d", i)
				var err error
				if first {
					_, err = d.CreateFirstUser(ctx, name, "h", token)
				} else {
					_, err = d.CreateUser(ctx, name, "h", token, "")
				}
				errs <- err
			}()
		}
		refused := 0
		for range cap(errs) {
			err := <-errs
			switch {
			case errors.Is(err, ErrInvalidInvite):
				refused++
			case err != nil:
				t.Fatal(err)
			}
		}
		users, err := d.Users(ctx)
		if err != nil {
			t.Fatal(err)
		}
		admins := 0
		for _, u := range users {
			if u.Admin {
				admins++
			}
		}
		if first && (len(users) != 1 || refused != cap(errs)-1) {
			t.Errorf("first sign-ups at once: %d users, %d refused; want 1 and %d", len(users), refused, cap(errs)-1)
		}
		if !first && (len(users) != cap(errs) || refused != 0) {
			t.Errorf("sign-ups at once: %d users, %d refused; want %d and 0", len(users), refused, cap(errs))
		}
		if admins != 1 || !users[0].Admin {
			t.Errorf("first only %v: %d admins, first user %+v; want only the first an admin", first, admins, users[0])
		}
	}
}
