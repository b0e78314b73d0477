package follow

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tidings/db"
	"tidings/imports"
	"tidings/worker"
)

// policyFake refuses private addresses as the real address policy does,
// without connecting anywhere.
type policyFake struct{ *fakeHarvester }

func (p policyFake) CheckAddress(ctx context.Context, rawURL string) error {
	if ip, err := netip.ParseAddr(worker.HostOf(rawURL)); err == nil && (ip.IsPrivate() || ip.IsLoopback()) {
		return errors.New("tidings does not connect to private addresses")
	}
	return p.fakeHarvester.CheckAddress(ctx, rawURL)
}

// notifications takes settings into the store as notify does, without
// sending the confirmation.
type notifications struct {
	store *db.DB
	on    bool
}

func (n notifications) EmailOn() bool { return n.on }
func (n notifications) SetEvery(ctx context.Context, userID int64, every string) error {
	return n.store.SetDigestEvery(ctx, userID, every)
}
func (n notifications) RequestEmail(ctx context.Context, u db.User, addr string) error {
	return n.store.RequestEmail(ctx, u.ID, addr, "hash-of-"+addr, time.Now().Add(time.Hour))
}

// importFile previews and imports a file for a person, waits for its
// discoveries, and returns the preview.
func importFile(t *testing.T, s *Service, store *db.DB, u db.User, data []byte) Preview {
	t.Helper()
	plan, err := imports.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := s.Preview(t.Context(), u.ID, plan, notifications{store, true})
	if err != nil {
		t.Fatal(err)
	}
	im, pv2, err := s.ImportPlan(t.Context(), u, plan, notifications{store, true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pv, pv2) {
		t.Errorf("the import did otherwise than its preview:\n%+v\n%+v", pv, pv2)
	}
	list, err := store.Discoveries(t.Context(), u.ID, im.ID, MaxImportSites)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x = finished(t, store, x.ID); x.Status == db.DiscoveryFailed {
			t.Errorf("discovery of %s failed: %s", x.InputURL, x.Message)
		}
	}
	return pv
}

// follows reads a person's follows back from the store: each site's
// address, the name they gave it, and their own rules.
func follows(t *testing.T, store *db.DB, u db.User) map[string]string {
	t.Helper()
	sites, err := store.FollowedSites(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	titles, err := store.FollowTitles(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range sites {
		rules, err := store.RulesFor(t.Context(), s.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var own []string
		for _, r := range rules {
			if r.UserID == u.ID {
				own = append(own, r.Kind+":"+r.Pattern)
			}
		}
		out[s.URL] = titles[s.ID] + " | " + strings.Join(own, ", ")
	}
	return out
}

func refusedWhat(pv Preview) []string {
	var out []string
	for _, r := range append(pv.Refused, pv.NotSet...) {
		out = append(out, r.What+": "+r.Why)
	}
	return out
}

// zipDir packs a changedetection.io datastore folder as its backup does.
func zipDir(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	})
	if err != nil || zw.Close() != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestImportFormats: the fixtures of each format give the right follows,
// with names and rules, and a preview that names each refusal.
func TestImportFormats(t *testing.T) {
	store := openStore(t)
	s := New(store, policyFake{newFake(store)}, Options{})
	t.Cleanup(s.Wait)

	ann := user(t, store, "ann")
	pv := importFile(t, s, store, ann, zipDir(t, "../imports/testdata/changedetection"))
	want := map[string]string{
		"https://lantern.example/": `The garden | text:Visitors today:, text:/last updated \d+ minutes ago/, css:#webring`,
		"https://shop.example/":    " | ",
	}
	if got := follows(t, store, ann); !reflect.DeepEqual(got, want) {
		t.Errorf("changedetection.io follows:\n got %q\nwant %q", got, want)
	}
	if r := refusedWhat(pv); len(r) != 1 || !strings.Contains(r[0], "http://192.168.1.1/status") || !strings.Contains(r[0], "private addresses") {
		t.Errorf("changedetection.io refusals %q", r)
	}
	if len(pv.Follow) != 2 || !slices.Equal(pv.Follow[1].Tags, []string{"Shops", "Shrines"}) || len(pv.Follow[1].Notes) != 3 {
		t.Errorf("changedetection.io preview %+v", pv.Follow)
	}

	bob := user(t, store, "bob")
	pv = importFile(t, s, store, bob, mustRead(t, "../imports/testdata/urls.yaml"))
	want = map[string]string{
		"https://lantern.example/": "Lantern Garden news | text:/^Visitors/",
		"https://shop.example/":    " | ",
		"https://wiki.example/":    "The wiki | ",
		"https://forms.example/":   "Feedback form | ",
	}
	if got := follows(t, store, bob); !reflect.DeepEqual(got, want) {
		t.Errorf("urlwatch follows:\n got %q\nwant %q", got, want)
	}
	r := refusedWhat(pv)
	if len(r) != 3 || !strings.HasPrefix(r[0], "job 3 (Disk space): it runs the command") ||
		r[1] != "job 6 (no address): it has no url" || !strings.HasPrefix(r[2], "job 7 (javascript:alert(1)): ") {
		t.Errorf("urlwatch refusals %q", r)
	}

	cy := user(t, store, "cy")
	pv = importFile(t, s, store, cy, mustRead(t, "../imports/testdata/list.txt"))
	want = map[string]string{
		"https://lantern.example/": " | ",
		"https://shrine.example/":  " | ",
		"https://blog.example/":    " | ",
	}
	if got := follows(t, store, cy); !reflect.DeepEqual(got, want) {
		t.Errorf("list follows:\n got %q\nwant %q", got, want)
	}
	r = refusedWhat(pv)
	if len(r) != 2 || r[0] != `line 6: "hello world" is not a web address` || !strings.HasPrefix(r[1], "line 7 (ftp://files.example/pub/): ") {
		t.Errorf("list refusals %q", r)
	}
	// Imported again, nothing new: the sites are followed already, and
	// the names and rules the person has stay.
	pv = importFile(t, s, store, ann, zipDir(t, "../imports/testdata/changedetection"))
	if len(pv.Follow) != 2 || !pv.Follow[0].Followed || !pv.Follow[1].Followed {
		t.Errorf("the second import's preview %+v", pv.Follow)
	}
	if got := follows(t, store, ann); got["https://lantern.example/"] != `The garden | text:Visitors today:, text:/last updated \d+ minutes ago/, css:#webring` {
		t.Errorf("after a second import: %q", got)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExportImportRoundTrip: what a person set on one tidings, exported
// and imported on an empty one, gives the same follows (with their
// names), rules and settings; a push target and the webhooks' secret,
// left out of the export, are named in the preview.
func TestExportImportRoundTrip(t *testing.T) {
	ctx := t.Context()
	from := openStore(t)
	ann := user(t, from, "ann")
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for i, site := range []struct{ url, title string }{{"https://lantern.example/", "My garden"}, {"https://blog.example/", ""}} {
		st, err := from.CreateSite(ctx, db.Site{URL: site.url, InputURL: site.url})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := from.CreateImportTitled(ctx, ann.ID, []db.ImportSite{{URL: site.url, Title: site.title}}, nil); err != nil {
			t.Fatal(err)
		}
		list, _ := from.Discoveries(ctx, ann.ID, 0, 1)
		if err := from.FinishDiscovery(ctx, list[0].ID, db.DiscoveryAlready, st.ID, ""); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			for _, r := range [][2]string{{db.IgnoreText, "Visitors today"}, {db.IgnoreCSS, "#webring"}} {
				if _, err := IgnoreRule(ctx, from, Ruler{User: &ann}, st.ID, r[0], r[1], false, now); err != nil {
					t.Fatal(err)
				}
			}
			// Rules for everyone stay with the site: not the person's.
			if _, err := from.AddIgnoreRule(ctx, st.ID, 0, db.IgnoreText, "Site-wide footer", now); err != nil {
				t.Fatal(err)
			}
			if _, err := from.AddPushTarget(ctx, ann.ID, "tgram://123456:AAFsecret@telegram/-1001", st.ID, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := from.SetDigestEvery(ctx, ann.ID, db.EveryWeekly); err != nil {
		t.Fatal(err)
	}
	if err := from.RequestEmail(ctx, ann.ID, "ann@mail.example", "h", now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := from.ConfirmEmail(ctx, "h", now); err != nil {
		t.Fatal(err)
	}
	if err := from.SetPushSecret(ctx, ann.ID, "webhook-secret-value"); err != nil {
		t.Fatal(err)
	}

	e, err := Export(ctx, from, ann, now)
	if err != nil {
		t.Fatal(err)
	}
	file, err := e.Write()
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"AAFsecret", "123456", "webhook-secret-value"} {
		if bytes.Contains(file, []byte(secret)) {
			t.Errorf("the export holds the secret %q:\n%s", secret, file)
		}
	}

	to := openStore(t)
	s := New(to, newFake(to), Options{})
	t.Cleanup(s.Wait)
	ann2 := user(t, to, "ann")
	pv := importFile(t, s, to, ann2, file)

	if got, want := follows(t, to, ann2), follows(t, from, ann); !reflect.DeepEqual(got, want) {
		t.Errorf("follows after the round trip:\n got %q\nwant %q", got, want)
	}
	if got := follows(t, to, ann2)["https://lantern.example/"]; got != "My garden | text:Visitors today, css:#webring" {
		t.Errorf("the garden: %q", got)
	}
	set, err := to.NotifySettingsOf(ctx, ann2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if set.Every != db.EveryWeekly || set.PendingEmail != "ann@mail.example" || set.Email != "" || set.PushSecret != "" {
		t.Errorf("settings after the round trip: %+v", set)
	}
	r := refusedWhat(pv)
	if len(r) != 2 || !strings.HasPrefix(r[0], "the webhooks' signing secret: ") ||
		r[1] != "the push target tgram://…@telegram/… for https://lantern.example/: an export leaves out a notification URL, which holds its secrets: add it again on the settings page" {
		t.Errorf("refusals %q", r)
	}
	if !slices.Contains(pv.Settings, "the e-mail digest: weekly") {
		t.Errorf("settings taken %q", pv.Settings)
	}

	// An export of the imported account is the first one again, but for
	// what it could not carry.
	e2, err := Export(ctx, to, ann2, now)
	if err != nil {
		t.Fatal(err)
	}
	e.Settings.Email, e.Settings.WebhookSecret, e.Settings.Pushes = "", false, nil
	if !reflect.DeepEqual(e, e2) {
		t.Errorf("export again:\n got %+v\nwant %+v", e2, e)
	}
}
