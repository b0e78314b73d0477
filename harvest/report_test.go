package harvest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"tidings/db"
)

// TestSiteLogLine: a harvest that worked is logged at INFO without an
// error; one where the site or a collection failed at WARN, naming what
// failed.
func TestSiteLogLine(t *testing.T) {
	ok := &SiteReport{Site: db.Site{URL: "https://a.example/"}, Collections: []CollectionReport{
		{Collection: db.Collection{Title: "Shrine"}, Run: db.Run{Documents: 3, Changes: 2}},
		{Collection: db.Collection{Title: "Gallery"}, Run: db.Run{Documents: 1}},
	}}
	failed := &SiteReport{Site: ok.Site, Collections: []CollectionReport{
		ok.Collections[0],
		{Collection: db.Collection{Title: "Gallery"}, Run: db.Run{Documents: 1, Error: "the change list returned 500"}},
	}}
	siteFailed := &SiteReport{Site: ok.Site, Run: db.Run{Error: "nothing was found"}}
	for _, tt := range []struct {
		rep          *SiteReport
		level, error string
	}{
		{ok, "INFO", ""},
		{failed, "WARN", "Gallery: the change list returned 500"},
		{siteFailed, "WARN", "nothing was found"},
	} {
		var buf bytes.Buffer
		tt.rep.log(slog.New(slog.NewJSONHandler(&buf, nil)), 1500*time.Millisecond)
		var rec map[string]any
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
			t.Fatalf("%v: %s", err, buf.String())
		}
		errText, hasErr := rec["error"]
		if rec["level"] != tt.level || rec["msg"] != "harvested site" || hasErr != (tt.error != "") || (hasErr && errText != tt.error) {
			t.Errorf("logged %s, want level %s and error %q", buf.String(), tt.level, tt.error)
		}
		if rec["site"] != "https://a.example/" || rec["duration"] != "1.5s" || rec["collections"] != float64(len(tt.rep.Collections)) {
			t.Errorf("logged %s", buf.String())
		}
	}
	if ok.Changes() != 2 || ok.Documents() != 4 {
		t.Errorf("changes %d, documents %d", ok.Changes(), ok.Documents())
	}
}
