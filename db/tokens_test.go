package db

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestAPITokens: a token is kept by the hash given, never as more; a
// person's tokens are theirs to list and revoke, up to MaxAPITokens; its
// use is recorded.
func TestAPITokens(t *testing.T) {
	d, _ := openTest(t)
	ctx := t.Context()
	ann, err := d.CreateUser(ctx, "ann", "x", "feed-a", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := d.CreateUser(ctx, "bob", "x", "feed-b", "")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	tok, err := d.CreateAPIToken(ctx, ann.ID, "script", "hash-of-secret", now)
	if err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := d.r.QueryRowContext(ctx, `SELECT name || '|' || token_hash FROM api_tokens WHERE id = ?`, tok.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != "script|hash-of-secret" {
		t.Errorf("stored %q", stored)
	}
	u, id, err := d.APITokenUser(ctx, "hash-of-secret", now.Add(time.Hour))
	if err != nil || u.ID != ann.ID || id != tok.ID {
		t.Fatalf("APITokenUser: %v %d %v", u, id, err)
	}
	list, err := d.APITokens(ctx, ann.ID)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(now.Add(time.Hour)) {
		t.Errorf("ann's tokens %+v, %v", list, err)
	}
	if err := d.DeleteAPIToken(ctx, bob.ID, tok.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob revoked ann's token: %v", err)
	}
	if err := d.DeleteAPIToken(ctx, ann.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.APITokenUser(ctx, "hash-of-secret", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("a revoked token: %v", err)
	}
	for i := range MaxAPITokens {
		if _, err := d.CreateAPIToken(ctx, bob.ID, "t", strings.Repeat("h", i+1), now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.CreateAPIToken(ctx, bob.ID, "one more", "other", now); !errors.Is(err, ErrTooManyTokens) {
		t.Errorf("token %d: %v", MaxAPITokens+1, err)
	}
	if err := d.DeleteUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if list, _ := d.APITokens(ctx, bob.ID); len(list) != 0 {
		t.Errorf("a deleted person's tokens stay: %v", list)
	}
}
