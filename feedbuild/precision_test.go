package feedbuild

import (
	"testing"

	"tidings/db"
)

func TestPrecision(t *testing.T) {
	for _, tc := range []struct {
		col  db.Collection
		want string
	}{
		{db.Collection{Protocol: db.ProtocolPages, Watched: 37}, "watches 37 pages"},
		{db.Collection{Protocol: db.ProtocolPages, Watched: 1}, "watches 1 page"},
		{db.Collection{Protocol: db.ProtocolResourceSync}, "follows its ResourceSync change list"},
		{db.Collection{Protocol: "sitemap"}, "follows its sitemap"},
	} {
		if got := Precision(tc.col); got != tc.want {
			t.Errorf("Precision(%s, %d) = %q, want %q", tc.col.Protocol, tc.col.Watched, got, tc.want)
		}
	}
}
