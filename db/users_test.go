package db

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestUsersInvitesAndFollows(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, err := d.CreateFirstUser(ctx, "ann", "h", "t1")
	if err != nil || !ann.Admin {
		t.Fatalf("first user: %+v, %v; want an admin", ann, err)
	}
	if _, err := d.CreateFirstUser(ctx, "bob", "h", "t2"); !errors.Is(err, ErrInvalidInvite) {
		t.Fatalf("a second 'first' user: %v, want ErrInvalidInvite", err)
	}
	if _, err := d.CreateUser(ctx, "ANN", "h", "t3", ""); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("name taken in another case: %v, want ErrAlreadyExists", err)
	}
	if _, err := d.CreateUser(ctx, "bob", "h", "t4", "nope"); !errors.Is(err, ErrInvalidInvite) {
		t.Fatalf("unknown invite: %v", err)
	}
	if err := d.CreateInvite(ctx, "inv", ann.ID, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	bob, err := d.CreateUser(ctx, "bob", "h", "t5", "inv")
	if err != nil || bob.Admin {
		t.Fatalf("invited user: %+v, %v", bob, err)
	}
	if _, err := d.CreateUser(ctx, "cy", "h", "t6", "inv"); !errors.Is(err, ErrInvalidInvite) {
		t.Fatalf("reused invite: %v", err)
	}
	if n, _ := d.CountUsers(ctx); n != 2 {
		t.Fatalf("users = %d after refused sign-ups, want 2", n)
	}
	invites, err := d.Invites(ctx)
	if err != nil || len(invites) != 1 || invites[0].UsedBy != "bob" || invites[0].CreatedBy != "ann" {
		t.Fatalf("invites: %+v, %v", invites, err)
	}

	site, _ := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	if err := d.Follow(ctx, ann.ID, site.ID); err != nil {
		t.Fatal(err)
	}
	if err := d.Follow(ctx, ann.ID, site.ID); !errors.Is(err, ErrAlreadyExists) {
		t.Fatalf("second follow: %v", err)
	}
	if err := d.Unfollow(ctx, bob.ID, site.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unfollowing what one does not follow: %v", err)
	}
	if err := d.DeleteUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SiteByID(ctx, site.ID); err != nil {
		t.Fatalf("the site must outlive its follower: %v", err)
	}
	if f, _ := d.Followers(ctx); f[site.ID] != 0 {
		t.Fatalf("followers after deleting the user: %v", f)
	}
}

func TestSessions(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	u, _ := d.CreateFirstUser(ctx, "ann", "h", "t")
	now := time.Now()
	if err := d.CreateSession(ctx, "live", u.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateSession(ctx, "old", u.ID, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := d.SessionUser(ctx, "live", now); err != nil || got.ID != u.ID {
		t.Fatalf("live session: %+v, %v", got, err)
	}
	if _, err := d.SessionUser(ctx, "old", now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if err := d.SetPassword(ctx, u.ID, "h2"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SessionUser(ctx, "live", now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("session after a password change: %v", err)
	}
}
