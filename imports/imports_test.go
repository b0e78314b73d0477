package imports

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// BackupZip packs a changedetection.io datastore folder the way its
// backup does: each file at its path under the folder, deflated.
func backupZip(t testing.TB, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate})
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChangeDetectionBackup reads a backup as changedetection.io 0.55
// writes it: each watch's url and title, its tags by their names, its
// ignored text and CSS left out as rules, and notes for what tidings
// does not keep (an XPath, an include filter, a restock processor, a
// pause). The history beside the JSON is not read.
func TestChangeDetectionBackup(t *testing.T) {
	p, err := Parse(backupZip(t, "testdata/changedetection"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != FormatChangeDetection || len(p.Refused) != 0 || p.Settings != nil {
		t.Fatalf("plan %s, refused %v, settings %v", p.Format, p.Refused, p.Settings)
	}
	want := []Site{
		{URL: "http://192.168.1.1/status", Title: "My router", From: "watch b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e"},
		{URL: "https://lantern.example/garden/", Title: "The garden", Tags: []string{"Shrines"},
			Rules: []Rule{{RuleText, "Visitors today:"}, {RuleText, `/last updated \d+ minutes ago/`}, {RuleCSS, "#webring"}},
			Notes: []string{`the XPath "xpath://footer" that left part of the page out is not kept: tidings takes CSS selectors`},
			From:  "watch 3f2b6a8e-1c4d-4e5f-9a0b-2c3d4e5f6a7b"},
		{URL: "https://shop.example/kettle", Tags: []string{"Shops", "Shrines"},
			Notes: []string{
				`changedetection.io watched only "#price" of the page; tidings follows its whole text (leave parts out with rules)`,
				`changedetection.io compared it with "restock_diff"; tidings compares the page's text`,
				"it was paused in changedetection.io; here it is followed",
			},
			From: "watch a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"},
	}
	if !reflect.DeepEqual(p.Sites, want) {
		t.Errorf("sites:\n got %+v\nwant %+v", p.Sites, want)
	}

	// A zip that is no backup, and url-watches.json of an older release.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("photos/cat.jpg")
	w.Write([]byte("meow"))
	zw.Close()
	if _, err := Parse(buf.Bytes()); err == nil || !strings.Contains(err.Error(), "not a changedetection.io backup") {
		t.Errorf("a zip of photos: %v", err)
	}
	old := `{"settings": {"application": {"tags": {"t1": {"title": "Art"}}}},
	  "watching": {"w1": {"url": "https://art.example/", "title": "Art site", "tags": ["t1"], "tag": "old, Art"}, "w2": {"url": ""}, "w3": []}}`
	p, err = Parse([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sites) != 1 || p.Sites[0].URL != "https://art.example/" || !reflect.DeepEqual(p.Sites[0].Tags, []string{"Art", "old"}) {
		t.Errorf("url-watches.json: %+v", p.Sites)
	}
	if !reflect.DeepEqual(p.Refused, []Refusal{{"watch w3", "it is not a watch as changedetection.io writes one"}, {"watch w2", "it has no url"}}) &&
		!reflect.DeepEqual(p.Refused, []Refusal{{"watch w2", "it has no url"}, {"watch w3", "it is not a watch as changedetection.io writes one"}}) {
		t.Errorf("refused %v", p.Refused)
	}
	if _, err := Parse(read(t, "changedetection/changedetection.json")); err == nil || !strings.Contains(err.Error(), "import the backup's .zip") {
		t.Errorf("the settings alone: %v", err)
	}
}

// TestURLWatch reads an urls.yaml with comments, filters, a command job,
// a browser job, a POST, a job without an address and an address that is
// not a web page's (left for the follow to refuse).
func TestURLWatch(t *testing.T) {
	p, err := Parse(read(t, "urls.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != FormatURLWatch {
		t.Fatalf("format %s", p.Format)
	}
	want := []Site{
		{URL: "https://lantern.example/news/", Title: "Lantern Garden news", Rules: []Rule{{RuleText, "/^Visitors/"}},
			Notes: []string{`the filter "css:#content" is not kept: tidings follows the page's whole text (leave parts out with rules)`},
			From:  "job 1 (Lantern Garden news)"},
		{URL: "https://shop.example/kettle",
			Notes: []string{`the filter "css:.price" is not kept: tidings follows the page's whole text (leave parts out with rules)`},
			From:  "job 2"},
		{URL: "https://wiki.example/Main_Page", Title: "The wiki",
			Notes: []string{"urlwatch read it in a browser; tidings reads the page as it is served"}, From: "job 4 (The wiki)"},
		{URL: "https://forms.example/feedback", Title: "Feedback form",
			Notes: []string{"urlwatch sent it a POST with data; tidings reads the page with GET"}, From: "job 5 (Feedback form)"},
		{URL: "javascript:alert(1)", From: "job 7"},
	}
	if !reflect.DeepEqual(p.Sites, want) {
		t.Errorf("sites:\n got %+v\nwant %+v", p.Sites, want)
	}
	wantRefused := []Refusal{
		{"job 3 (Disk space)", `it runs the command "df -h /": tidings follows web addresses, and runs no programs`},
		{"job 6 (no address)", "it has no url"},
	}
	if !reflect.DeepEqual(p.Refused, wantRefused) {
		t.Errorf("refused:\n got %v\nwant %v", p.Refused, wantRefused)
	}
	if _, err := Parse([]byte("url: [unclosed\n")); err == nil || !strings.Contains(err.Error(), "job 1") {
		t.Errorf("broken YAML: %v", err)
	}
	// Aliases that would expand a small file into a huge one are never
	// expanded: the filter is read as the node it is.
	bomb := "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\nurl: x\nfilter: *h\n"
	p, err = Parse([]byte(bomb))
	if err != nil || len(p.Sites) != 1 || len(p.Sites[0].Rules)+len(p.Sites[0].Notes) != 0 {
		t.Errorf("a YAML alias bomb: %v %+v", err, p)
	}
}

// TestList reads a plain list: comments and blank lines passed over,
// an address without its scheme kept as typed, junk named by its line,
// tags after an address.
func TestList(t *testing.T) {
	p, err := Parse(read(t, "list.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Site{
		{URL: "https://lantern.example/", From: "line 2"},
		{URL: "shrine.example/gallery", From: "line 5"},
		{URL: "ftp://files.example/pub/", From: "line 7"},
		{URL: "https://blog.example/", Tags: []string{"Blogs", "Friends"}, From: "line 8"},
	}
	if p.Format != FormatList || !reflect.DeepEqual(p.Sites, want) {
		t.Errorf("%s sites:\n got %+v\nwant %+v", p.Format, p.Sites, want)
	}
	if !reflect.DeepEqual(p.Refused, []Refusal{{"line 6", `"hello world" is not a web address`}}) {
		t.Errorf("refused %v", p.Refused)
	}
	for _, bad := range []string{"", "  \n\n", "\xff\xfe\x00garbage"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) read it", bad)
		}
	}
	if _, err := Parse(bytes.Repeat([]byte("https://a.example/\n"), MaxBytes/18+1)); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a file over the limit: %v", err)
	}
	many := strings.Repeat("https://a.example/\n", MaxEntries+3)
	p, err = Parse([]byte(many))
	if err != nil || len(p.Sites) != MaxEntries || len(p.Refused) != 3 {
		t.Errorf("a list of %d: %d sites, %d refused, %v", MaxEntries+3, len(p.Sites), len(p.Refused), err)
	}
}

// TestOPML reads OPML through the OPML parser: titles kept, a feed's
// address used when the page's is missing, a bad address refused.
func TestOPML(t *testing.T) {
	doc := `<?xml version="1.0"?><opml version="2.0"><body><outline text="Friends">
<outline text="Garden" xmlUrl="https://lantern.example/feed.xml" htmlUrl="https://lantern.example/"/>
<outline text="Feed only" xmlUrl="https://blog.example/atom.xml"/>
<outline text="Bad" xmlUrl="file:///etc/passwd"/></outline></body></opml>`
	p, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Site{{URL: "https://lantern.example/", Title: "Garden", From: "outline 1"}, {URL: "https://blog.example/atom.xml", Title: "Feed only", From: "outline 2"}}
	if p.Format != FormatOPML || !reflect.DeepEqual(p.Sites, want) || len(p.Refused) != 1 || !strings.Contains(p.Refused[0].Why, "file:///etc/passwd") {
		t.Errorf("%s %+v refused %v", p.Format, p.Sites, p.Refused)
	}
}

// TestExportRoundTrip writes an export and reads it back.
func TestExportRoundTrip(t *testing.T) {
	e := Export{User: "ann", Follows: []ExportFollow{
		{URL: "https://lantern.example/", Title: "Garden", Rules: []Rule{{RuleText, "Visitors"}, {RuleCSS, "#ring"}}},
		{URL: "https://blog.example/", Rules: []Rule{{"learned", "x"}}},
	}, Settings: Settings{Email: "ann@mail.example", Digest: "weekly", WebhookSecret: true,
		Pushes: []ExportPush{{Service: Redact("tgram://123:secret@telegram/-100"), Site: "https://blog.example/"}}}}
	b, err := e.Write()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("secret")) && !bytes.Contains(b, []byte(`"webhook_secret"`)) {
		t.Errorf("the export holds a secret:\n%s", b)
	}
	if strings.Contains(string(b), "123:") {
		t.Errorf("the push target's token is in the export:\n%s", b)
	}
	p, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Site{
		{URL: "https://lantern.example/", Title: "Garden", Rules: []Rule{{RuleText, "Visitors"}, {RuleCSS, "#ring"}}, From: "follow 1"},
		{URL: "https://blog.example/", Notes: []string{`the rule "x" of kind "learned" is not kept: a rule is a text or a CSS selector`}, From: "follow 2"},
	}
	if p.Format != FormatTidings || !reflect.DeepEqual(p.Sites, want) || !reflect.DeepEqual(*p.Settings, e.Settings) {
		t.Errorf("read back:\n got %+v %+v\nwant %+v %+v", p.Sites, p.Settings, want, e.Settings)
	}
	if got := Redact("tgram://123:secret@telegram/-100"); got != "tgram://…@telegram/…" {
		t.Errorf("Redact = %q", got)
	}
	if _, err := Parse([]byte(`{"tidings_export": 7, "follows": []}`)); err == nil || !strings.Contains(err.Error(), "version 7") {
		t.Errorf("a newer export: %v", err)
	}
}
