package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestIgnoreRules(t *testing.T) {
	d, _ := openTest(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	site, err := d.CreateSite(ctx, Site{URL: "https://moths.example/", InputURL: "https://moths.example/"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := d.AddIgnoreRule(ctx, site.ID, 0, IgnoreText, "visited", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddIgnoreRule(ctx, site.ID, 0, IgnoreCSS, "#counter", now); err != nil {
		t.Fatal(err)
	}
	if _, err := d.AddIgnoreRule(ctx, site.ID, 0, IgnoreText, "visited", now); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("the same rule again: %v, want ErrAlreadyExists", err)
	}
	// A harvest's learned shapes, one twice: kept once each, within their
	// own cap, which leaves people's rules alone.
	var shapes []string
	for i := range MaxLearned + 5 {
		shapes = append(shapes, fmt.Sprintf("Moth docs #.# %d", i))
	}
	shapes = append(shapes, shapes[0])
	if err := d.inTx(ctx, func(tx *sql.Tx) error { return saveLearned(ctx, tx, site.ID, shapes, now) }); err != nil {
		t.Fatal(err)
	}
	rules, err := d.IgnoreRules(ctx, site.ID)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, r := range rules {
		kinds[r.Kind]++
	}
	if kinds[IgnoreText] != 1 || kinds[IgnoreCSS] != 1 || kinds[IgnoreLearned] != MaxLearned {
		t.Errorf("rules by kind %v, want 1 text, 1 css, %d learned", kinds, MaxLearned)
	}
	if rules[0].Pattern != "visited" || !rules[0].CreatedAt.Equal(now) {
		t.Errorf("first rule %+v", rules[0])
	}
	if err := d.DeleteIgnoreRule(ctx, site.ID+1, 0, text.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another site's rule deleted: %v", err)
	}
	if err := d.DeleteIgnoreRule(ctx, site.ID, 0, text.ID); err != nil {
		t.Fatal(err)
	}
	for i := range MaxIgnoreRules {
		_, err = d.AddIgnoreRule(ctx, site.ID, 0, IgnoreText, fmt.Sprint("rule ", i), now)
	}
	if !errors.Is(err, ErrTooManyRules) {
		t.Errorf("rule %d past the cap: %v, want ErrTooManyRules", MaxIgnoreRules+1, err)
	}
	// The site's rules go with it.
	if _, err := d.w.ExecContext(ctx, `DELETE FROM sites WHERE id = ?`, site.ID); err != nil {
		t.Fatal(err)
	}
	if rules, _ := d.IgnoreRules(ctx, site.ID); len(rules) != 0 {
		t.Errorf("%d rules outlived their site", len(rules))
	}
}
