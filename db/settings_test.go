package db

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPublicURLIsRemembered(t *testing.T) {
	d, _ := openTest(t)
	ctx := context.Background()
	if _, _, err := d.PublicURL(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a new database knows a public address: %v", err)
	}
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, u := range []string{"https://feeds.example.org/", "https://tidings.example.org/"} {
		if err := d.SetPublicURL(ctx, u, at); err != nil {
			t.Fatal(err)
		}
		got, when, err := d.PublicURL(ctx)
		if err != nil || got != u || !when.Equal(at) {
			t.Errorf("PublicURL() = %q, %v, %v; want %q, %v", got, when, err, u, at)
		}
		at = at.Add(time.Hour)
	}
}

// TestServedURLIsKeptApart: the address serve made of --addr is kept
// beside the public address it was given, never in its place.
func TestServedURLIsKeptApart(t *testing.T) {
	d, _ := openTest(t)
	ctx := context.Background()
	if _, _, err := d.ServedURL(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a new database knows a served address: %v", err)
	}
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	if err := d.SetPublicURL(ctx, "https://feeds.example.org/", at); err != nil {
		t.Fatal(err)
	}
	if err := d.SetServedURL(ctx, "http://0.0.0.0:8080/", at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, when, err := d.ServedURL(ctx); err != nil || got != "http://0.0.0.0:8080/" || !when.Equal(at.Add(time.Hour)) {
		t.Errorf("ServedURL() = %q, %v, %v", got, when, err)
	}
	if got, _, err := d.PublicURL(ctx); err != nil || got != "https://feeds.example.org/" {
		t.Errorf("PublicURL() after SetServedURL = %q, %v", got, err)
	}
}
