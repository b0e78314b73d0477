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
