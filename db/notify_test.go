package db

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestNotifySettingsAndConfirmation: a person has the defaults until
// they set anything; an address is theirs only through its token, before
// it expires, and a link for an address since changed unsubscribes
// nothing.
func TestNotifySettingsAndConfirmation(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann := testUser(t, d, "ann")
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

	s, err := d.NotifySettingsOf(ctx, ann.ID)
	if err != nil || s.Email != "" || s.Every != EveryDaily || s.UserName != "ann" {
		t.Fatalf("defaults = %+v, %v", s, err)
	}
	if _, err := d.NotifySettingsOf(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("settings of no user: %v, want ErrNotFound", err)
	}
	if err := d.RequestEmail(ctx, ann.ID, "ann@example.org", "hash1", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ConfirmEmail(ctx, "other", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("confirm with a wrong token: %v", err)
	}
	if _, err := d.ConfirmEmail(ctx, "hash1", now.Add(2*time.Hour)); !errors.Is(err, ErrNotFound) {
		t.Errorf("confirm after expiry: %v", err)
	}
	s, err = d.ConfirmEmail(ctx, "hash1", now)
	if err != nil || s.Email != "ann@example.org" || s.PendingEmail != "" || s.DigestAt == nil || !s.DigestAt.Equal(now) {
		t.Fatalf("confirmed = %+v, %v", s, err)
	}
	if _, err := d.ConfirmEmail(ctx, "hash1", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("a token used twice: %v", err)
	}
	subs, err := d.Subscribers(ctx)
	if err != nil || len(subs) != 1 || subs[0].UserID != ann.ID {
		t.Errorf("subscribers = %+v, %v", subs, err)
	}
	if ok, err := d.UnsubscribeDigest(ctx, ann.ID, "old@example.org"); ok || err != nil {
		t.Errorf("unsubscribe of an address not hers = %v, %v", ok, err)
	}
	if ok, err := d.UnsubscribeDigest(ctx, ann.ID, "ann@example.org"); !ok || err != nil {
		t.Errorf("unsubscribe = %v, %v", ok, err)
	}
	if subs, _ := d.Subscribers(ctx); len(subs) != 0 {
		t.Errorf("subscribers after unsubscribing = %+v", subs)
	}
}

// TestPushTargets: one URL once per scope; removed by id or URL, only
// the person's own.
func TestPushTargets(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann, bob := testUser(t, d, "ann"), testUser(t, d, "bob")
	site, err := d.CreateSite(ctx, Site{URL: "https://example.org/", InputURL: "https://example.org/"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	all, err := d.AddPushTarget(ctx, ann.ID, "ntfy://ntfy.sh/a", 0, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddPushTarget(ctx, ann.ID, "ntfy://ntfy.sh/a", 0, now); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("the same target twice: %v", err)
	}
	one, err := d.AddPushTarget(ctx, ann.ID, "ntfy://ntfy.sh/a", site.ID, now)
	if err != nil || one.SiteID != site.ID || one.SiteTitle != "https://example.org/" {
		t.Fatalf("target for one site = %+v, %v", one, err)
	}
	if n, err := d.RemovePushTarget(ctx, bob.ID, all.ID, ""); n != 0 || err != nil {
		t.Errorf("bob removed ann's target: %d, %v", n, err)
	}
	if n, err := d.RemovePushTarget(ctx, ann.ID, 0, "ntfy://ntfy.sh/a"); n != 2 || err != nil {
		t.Errorf("remove by URL = %d, %v; want 2", n, err)
	}
}

// TestOutbox: a message is claimed by one process for its lease, then
// free again; retried, sent or given up; the watermark moves with the
// messages it queued, once.
func TestOutbox(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	ann := testUser(t, d, "ann")
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := d.SetDigestEvery(ctx, ann.ID, EveryWeekly); err != nil {
		t.Fatal(err)
	}
	msg := &OutboxMessage{UserID: ann.ID, Kind: OutboxEmail, Address: "ann@example.org", Message: "{}"}
	if err := d.EnqueueDigest(ctx, ann.ID, 0, 7, msg, now); err != nil {
		t.Fatal(err)
	}
	if err := d.EnqueueDigest(ctx, ann.ID, 0, 7, msg, now); !errors.Is(err, ErrConflict) {
		t.Errorf("the same digest queued twice: %v, want ErrConflict", err)
	}
	if s, _ := d.NotifySettingsOf(ctx, ann.ID); s.DigestAfter != 7 || s.Every != EveryWeekly {
		t.Errorf("settings after the digest = %+v", s)
	}

	m, err := d.ClaimOutbox(ctx, now, time.Minute)
	if err != nil || m.Address != "ann@example.org" {
		t.Fatalf("claim = %+v, %v", m, err)
	}
	if _, err := d.ClaimOutbox(ctx, now.Add(30*time.Second), time.Minute); !errors.Is(err, ErrNotFound) {
		t.Errorf("a message claimed twice within its lease: %v", err)
	}
	again, err := d.ClaimOutbox(ctx, now.Add(2*time.Minute), time.Minute)
	if err != nil || again.ID != m.ID {
		t.Fatalf("claim after the lease = %+v, %v", again, err)
	}
	if err := d.MarkRetry(ctx, m.ID, now.Add(time.Hour), "the mail server could not be reached"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ClaimOutbox(ctx, now.Add(30*time.Minute), time.Minute); !errors.Is(err, ErrNotFound) {
		t.Errorf("a message claimed before its retry: %v", err)
	}
	trouble, err := d.OutboxTrouble(ctx, ann.ID, now.Add(-time.Hour), 10)
	if err != nil || len(trouble) != 1 || trouble[0].Attempts != 1 {
		t.Errorf("trouble = %+v, %v", trouble, err)
	}
	m, err = d.ClaimOutbox(ctx, now.Add(time.Hour), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	sent := now.Add(time.Hour)
	if err := d.MarkSent(ctx, m.ID, sent); err != nil {
		t.Fatal(err)
	}
	if n, err := d.SentSince(ctx, ann.ID, 0, now); n != 1 || err != nil {
		t.Errorf("sent since = %d, %v", n, err)
	}
	if trouble, _ := d.OutboxTrouble(ctx, ann.ID, now.Add(-time.Hour), 10); len(trouble) != 0 {
		t.Errorf("a sent message is still trouble: %+v", trouble)
	}
	if n, err := d.PruneOutbox(ctx, sent); n != 0 || err != nil {
		t.Errorf("pruned %d, %v before its time", n, err)
	}
	if n, err := d.PruneOutbox(ctx, sent.Add(time.Second)); n != 1 || err != nil {
		t.Errorf("pruned %d, %v; want 1", n, err)
	}
}

// TestSecretIsMadeOnce: every caller gets the first secret made.
func TestSecretIsMadeOnce(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	a, err := d.Secret(ctx, "notify", func() string { return "first" })
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Secret(ctx, "notify", func() string { return "second" })
	if err != nil || a != "first" || b != "first" {
		t.Errorf("secrets %q, %q, %v; want first twice", a, b, err)
	}
}
