package notify

import (
	"context"
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strings"
	texttemplate "text/template"
	"time"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/feeds"
)

// digestSite is one site of a digest, with its changes newest first.
type digestSite struct {
	Name    string
	URL     string
	Page    string // the site's page on tidings
	Changes []digestChange
	// Quiet says why the site comes first: it had been silent for long
	// ("First change in 4 months"); "" for the others.
	Quiet string
	id    int64
	// oldest is when its oldest change of the digest was made.
	oldest time.Time
}

// digestChange is one change as a digest tells it, in both parts.
type digestChange struct {
	Title   string
	URL     string
	Kind    string
	When    string
	Summary string
	// DiffHTML is what the change did to the page's text as the feed
	// entries show it, in words and markup; DiffText the same as a
	// reader without HTML reads it.
	DiffHTML template.HTML
	DiffText string
	// Times counts the changes of the page since the last digest: one
	// item tells them all, with the newest's diff; edits, whether each
	// was an update.
	Times int
	edits bool
}

// Count says how often the page changed, when more than once: "edited
// 3 times" when each change was an edit.
func (c digestChange) Count() string {
	if c.Times < 2 {
		return ""
	}
	verb := "changed"
	if c.edits {
		verb = "edited"
	}
	return fmt.Sprintf("%s %d times", verb, c.Times)
}

// digestData is what the digest's two parts are rendered from.
type digestData struct {
	Name        string
	Since       string
	Count       string
	Sites       []digestSite
	Omitted     int
	Dashboard   string
	Settings    string
	Unsubscribe string
	Every       string
	// Early: sent before its time, when asked (notify --now, the demo).
	Early bool
}

// digestTime is how a digest writes times.
const digestTime = "2 Jan 2006 15:04 UTC"

// digest composes a person's digest of changes, which are theirs alone
// (NotifyChanges reads only what they follow), total of them in all.
func (n *Notifier) digest(ctx context.Context, s db.NotifySettings, changes []db.NotifyChange, total int, early bool) (email, error) {
	unsub, err := n.unsubscribeURL(ctx, s.UserID, s.Email)
	if err != nil {
		return email{}, err
	}
	d := digestData{
		Name: s.UserName, Count: plural(total, "change", "changes"), Omitted: total - len(changes),
		Dashboard: n.abs(""), Settings: n.abs(SettingsPath), Unsubscribe: unsub, Every: s.Every, Early: early,
	}
	if s.DigestAt != nil {
		d.Since = s.DigestAt.UTC().Format(digestTime)
	}
	var item map[string]int // the site's item of each page, by address
	for _, ch := range changes {
		if len(d.Sites) == 0 || d.Sites[len(d.Sites)-1].URL != ch.SiteURL {
			d.Sites = append(d.Sites, digestSite{Name: siteName(ch), URL: ch.SiteURL, Page: n.sitePage(ch), id: ch.SiteID, oldest: ch.Datetime})
			item = map[string]int{}
		}
		site := &d.Sites[len(d.Sites)-1]
		if ch.Datetime.Before(site.oldest) {
			site.oldest = ch.Datetime
		}
		if i, ok := item[ch.URL]; ok {
			// Changes come newest first: the item has the newest.
			site.Changes[i].Times++
			site.Changes[i].edits = site.Changes[i].edits && ch.Kind == "updated"
			continue
		}
		item[ch.URL] = len(site.Changes)
		html := feedbuild.TextHTML(ch.Change)
		site.Changes = append(site.Changes, digestChange{
			Title: pageTitle(ch), URL: ch.URL, Kind: ch.Kind, When: ch.Datetime.UTC().Format(digestTime),
			Summary:  clip(oneLine(ch.Summary), 500),
			DiffHTML: template.HTML(html), DiffText: feeds.CleanText(feeds.PlainText(html)),
			Times: 1, edits: ch.Kind == "updated",
		})
	}
	for i := range d.Sites {
		tellApart(d.Sites[i].Changes)
	}
	if err := n.quietFirst(ctx, d.Sites); err != nil {
		return email{}, err
	}
	var text, html strings.Builder
	if err := textDigest.Execute(&text, d); err != nil {
		return email{}, fmt.Errorf("notify: render digest: %w", err)
	}
	if err := htmlDigest.Execute(&html, d); err != nil {
		return email{}, fmt.Errorf("notify: render digest: %w", err)
	}
	return email{Subject: subject(d), Text: text.String(), HTML: html.String(), Unsubscribe: unsub}, nil
}

// tellApart adds its path to the title of each page that shares its
// title with another of the site's (pages titled by the site's name), as
// the feeds do, so that a list of titles tells them apart.
func tellApart(changes []digestChange) {
	count := map[string]int{}
	for _, c := range changes {
		count[c.Title]++
	}
	for i, c := range changes {
		if count[c.Title] < 2 {
			continue
		}
		if u, err := url.Parse(c.URL); err == nil && u.Path != "" {
			changes[i].Title += " (" + u.EscapedPath() + ")"
		} else if err == nil {
			changes[i].Title += " (/)"
		}
	}
}

// quietFirst puts first the sites that had been silent for long before
// the changes of the digest (feedbuild.QuietAfter), saying why: a site
// that changes once in months says more when it does than one that
// changes daily. One lookup a site.
func (n *Notifier) quietFirst(ctx context.Context, sites []digestSite) error {
	asks := make([]db.QuietAsk, len(sites))
	for i, s := range sites {
		asks[i] = db.QuietAsk{SiteID: s.id, Before: s.oldest}
	}
	last, err := n.store.ChangedBefore(ctx, asks)
	if err != nil {
		return err
	}
	for i := range sites {
		prev, ok := last[sites[i].id]
		// Only a site that changed before can have been silent: one
		// changing for the first time since it was followed is not told
		// apart here, having no follow time of the person's to go by.
		if ok {
			sites[i].Quiet = feedbuild.QuietReason(sites[i].oldest, prev, true, time.Time{})
		}
	}
	slices.SortStableFunc(sites, func(a, b digestSite) int {
		switch {
		case a.Quiet != "" && b.Quiet == "":
			return -1
		case b.Quiet != "" && a.Quiet == "":
			return 1
		}
		return 0
	})
	return nil
}

// subject names the count and the first sites.
func subject(d digestData) string {
	var names []string
	for i, s := range d.Sites {
		if i == 2 {
			names = append(names, fmt.Sprintf("%d more", len(d.Sites)-2))
			break
		}
		names = append(names, s.Name)
	}
	return clip(fmt.Sprintf("tidings: %s on %s", d.Count, strings.Join(names, ", ")), 150)
}

var digestFuncs = map[string]any{
	"indent": func(s string) string {
		if s == "" {
			return ""
		}
		return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ") + "\n"
	},
}

func mustText(s string) *texttemplate.Template {
	return texttemplate.Must(texttemplate.New("digest").Funcs(digestFuncs).Parse(s))
}

// textDigest is the plain-text part: what a mail client without HTML
// shows, the diffs' words saying what was removed and what added.
var textDigest = mustText(`What changed on the sites you follow{{with .Since}} since {{.}}{{end}}: {{.Count}}.
{{range .Sites}}
== {{.Name}} ==
{{with .Quiet}}{{.}}.
{{end}}{{.URL}}
On tidings: {{.Page}}
{{range .Changes}}
* {{.Title}} ({{with .Count}}{{.}}, the last {{else}}{{.Kind}}, {{end}}{{.When}})
  {{.URL}}
{{with .Summary}}  {{.}}
{{end}}{{indent .DiffText}}{{end}}{{end}}{{if .Omitted}}
And {{.Omitted}} more, too many for one e-mail: {{.Dashboard}}
{{end}}
-- 
You get this digest {{.Every}}{{if .Early}} (this one was sent before its time, when asked){{end}} from tidings as {{.Name}}.
Settings: {{.Settings}}
Unsubscribe: {{.Unsubscribe}}
`)

// htmlDigest is the HTML part; its diffs are the feed entries' own
// rendering, in words as well as markup.
var htmlDigest = template.Must(template.New("digest").Funcs(digestFuncs).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tidings</title></head>
<body style="font-family: sans-serif; max-width: 40em">
<p>What changed on the sites you follow{{with .Since}} since {{.}}{{end}}: {{.Count}}.</p>
{{range .Sites}}
<h2><a href="{{.URL}}">{{.Name}}</a></h2>
{{with .Quiet}}<p><strong>{{.}}.</strong></p>{{end}}
<p><a href="{{.Page}}">{{.Name}} on tidings</a></p>
{{range .Changes}}
<h3><a href="{{.URL}}">{{.Title}}</a></h3>
<p>{{with .Count}}{{.}}, the last {{else}}{{.Kind}}, {{end}}{{.When}}</p>
{{with .Summary}}<p>{{.}}</p>{{end}}
{{.DiffHTML}}
{{end}}{{end}}
{{if .Omitted}}<p>And {{.Omitted}} more, too many for one e-mail: <a href="{{.Dashboard}}">read them on tidings</a>.</p>{{end}}
<hr>
<p>You get this digest {{.Every}}{{if .Early}} (this one was sent before its time, when asked){{end}} from tidings as {{.Name}}. <a href="{{.Settings}}">Settings</a> · <a href="{{.Unsubscribe}}">Unsubscribe</a></p>
</body></html>
`))
