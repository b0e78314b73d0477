package web

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
	"tidings/follow"
)

type sitePageData struct {
	View    siteView
	Changes []changeView
	// Harvests are the site's newest harvests, one row each.
	Harvests []harvestView
	Notice   string
	Health   siteHealth
	// Pruned says that the site's older changes were deleted to keep it
	// within its share of the disk; "" when they never were.
	Pruned string
	// SignedIn and Following decide the buttons: the page itself is
	// public, for feed readers' autodiscovery and for sharing.
	SignedIn, Following bool
	// Harvesting: a harvest asked for is running; the page reloads
	// itself until it is done.
	Harvesting bool
	// Rules are the site's ignore rules the reader sees: those for
	// everyone and their own, never another person's; RuleForm the form
	// to add one, as a person filled it when it was refused.
	Rules    []ruleView
	RuleForm ruleForm
	// Admin may give rules for everyone.
	Admin bool
}

// ruleView is one rule as the site page lists it.
type ruleView struct {
	db.IgnoreRule
	// Mine: the reader's own rule. Removable: the reader may remove it
	// (their own; for an admin, one for everyone too).
	Mine, Removable bool
}

func (d sitePageData) refresh() int {
	if d.Harvesting {
		return 3
	}
	return 0
}

// changeView is one change as the site and collection pages show it.
type changeView struct {
	db.Change
	Collection string        // "" on a collection's own page
	Name       string        // the page's title, or its URL when it has none
	Label      string        // the kind, capitalised
	Diff       template.HTML // "" when the text is unknown or unchanged
	Line       string        // the diff in one line, for a folded diff
	Folded     bool
	// Part: Diff leaves out lines the stored diff keeps; WholeURL, when
	// the page knows the change's collection, leads to them.
	Part     bool
	WholeURL string
	// SameText: a protocol said the page changed, its text did not.
	SameText bool
}

// openDiffs is how many changes show their diff unfolded: past them, a page
// of fifty changes would be mostly diff text.
const openDiffs = 5

// newChangeView prepares the n-th change of a page (from 0).
func newChangeView(ch db.Change, collection string, n int) changeView {
	v := changeView{Change: ch, Collection: collection, Name: ch.Title, Label: kindLabel(ch.Kind)}
	if v.Name == "" {
		v.Name = ch.URL
	}
	v.SameText = ch.TextChange == db.TextUnchanged
	if d, ok := feedbuild.TextDiff(ch); ok {
		// pagetext escapes every piece of the site's text it puts in the
		// HTML, so the markup is its own <p>, <ins> and <del> only.
		html, whole := d.HTMLPart()
		v.Diff, v.Part = template.HTML(html), !whole
		v.Line = d.Summary()
		v.Folded = n >= openDiffs
	}
	return v
}

func kindLabel(kind string) string {
	switch kind {
	case "created":
		return "Created"
	case "updated":
		return "Updated"
	case "deleted":
		return "Deleted"
	}
	return kind
}

func (s *Server) sitePage(c echo.Context) error {
	site, numeric, err := s.pathSite(c)
	if err != nil {
		return err
	}
	if numeric {
		return s.movedTo(c, sitePath(site))
	}
	return s.showSite(c, site, http.StatusOK, ruleForm{Kind: db.IgnoreText})
}

// showSite renders a site's page, with the form to add an ignore rule as
// given (refused, with its error, or empty).
func (s *Server) showSite(c echo.Context, site db.Site, status int, form ruleForm) error {
	ctx := c.Request().Context()
	// Whether a harvest asked for is done is asked before what it stores
	// is read, so that a page saying it is done shows all of it.
	notice, harvesting := s.siteNotice(c, site)
	if c.QueryParam("harvest") == "started" && !harvesting {
		var err error
		if site, err = s.store.SiteByID(ctx, site.ID); err != nil {
			return err
		}
	}
	views, err := s.siteViews(c, []db.Site{site})
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, cv := range views[0].Collections {
		names[cv.Collection.ID] = cv.Collection.Title
	}
	d := sitePageData{View: views[0], Health: healthOf(site, views[0].Collections)}
	if u := currentUser(c); u != nil {
		d.SignedIn = true
		if d.Following, err = s.store.Follows(ctx, u.ID, site.ID); err != nil {
			return err
		}
	}
	changes, err := s.store.FeedChanges(ctx, db.Scope{SiteID: site.ID}, 30)
	if err != nil {
		return err
	}
	cols := map[int64]db.Collection{}
	for _, cv := range views[0].Collections {
		cols[cv.Collection.ID] = cv.Collection
	}
	for i, ch := range changes {
		v := newChangeView(ch, names[ch.CollectionID], i)
		if col, ok := cols[ch.CollectionID]; ok {
			s.linkWhole(&v, col)
		}
		d.Changes = append(d.Changes, v)
	}
	harvests, err := s.store.Harvests(ctx, site.ID, 20)
	if err != nil {
		return err
	}
	for _, h := range harvests {
		d.Harvests = append(d.Harvests, newHarvestView(h, names))
	}
	d.Notice, d.Harvesting = notice, harvesting
	if d.Pruned, err = s.prunedNotice(c, site); err != nil {
		return err
	}
	var me int64
	if u := currentUser(c); u != nil {
		me, d.Admin = u.ID, u.Admin
	}
	rules, err := s.store.RulesFor(ctx, site.ID, me)
	if err != nil {
		return err
	}
	for _, r := range rules {
		mine := me != 0 && r.UserID == me
		d.Rules = append(d.Rules, ruleView{IgnoreRule: r, Mine: mine, Removable: d.Following && (mine || d.Admin && r.UserID == 0)})
	}
	d.RuleForm = form
	return s.render(c, status, "site", siteName(site), d)
}

// siteName is what a page calls a site: its title when it has one.
func siteName(site db.Site) string {
	if site.Title != "" {
		return site.Title
	}
	return site.URL
}

// prunedNotice says, when the sweep deleted a site's older changes to
// keep it within its share, up to when, and what a reader can do.
func (s *Server) prunedNotice(c echo.Context, site db.Site) (string, error) {
	cut, err := s.store.ShareCutOf(c.Request().Context(), site.ID)
	if errors.Is(err, db.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("This site changes so much that it stored more than the %s each site may keep here, so on %s its changes up to %s were deleted, "+
		"the oldest first; its newest changes are kept, and its feeds say where their history now ends. "+
		"To keep every change, subscribe to a feed below: your feed reader keeps what it has read.",
		sizeText(cut.Share), cut.At.UTC().Format("2 Jan 2006"), cut.Until.UTC().Format("2 Jan 2006 15:04 UTC")), nil
}

// siteNotice says what the action that led to the site page did.
func (s *Server) siteNotice(c echo.Context, site db.Site) (notice string, harvesting bool) {
	switch {
	case c.QueryParam("harvest") == "started" && s.follow.Harvesting(c.Request().Context(), site.ID):
		return "Harvesting now… This page refreshes itself when the harvest is done.", true
	case c.QueryParam("harvest") == "started":
		return "The harvest you asked for is done: what it found is below.", false
	case c.QueryParam("harvest") == "wait":
		mins, _ := strconv.Atoi(c.QueryParam("in"))
		return "This site was harvested on request a moment ago. Try again in " + plural(max(1, mins), "minute", "minutes") + ".", false
	case c.QueryParam("harvest") == "quota" && currentUser(c) != nil:
		var quota *follow.QuotaError
		if err := s.follow.CanHarvest(c.Request().Context(), currentUser(c).ID); errors.As(err, &quota) {
			return quota.Message(), false
		}
		return "You can ask for a harvest again.", false
	case c.QueryParam("rule") == "added":
		return "The rule is added: the next harvest leaves out what it matches.", false
	case c.QueryParam("rule") == "removed":
		return "The rule is removed.", false
	case c.QueryParam("followed") != "":
		return "You now follow " + siteName(site) + ". Its feeds are below.", false
	}
	return "", false
}

// siteHarvest harvests a followed site now, in the background, as often
// as the follow service allows.
func (s *Server) siteHarvest(c echo.Context) error {
	site, err := s.followedSite(c)
	if err != nil {
		return err
	}
	page := s.abs(sitePath(site))
	var wait *follow.WaitError
	var quota *follow.QuotaError
	if err := s.follow.HarvestNow(c.Request().Context(), currentUser(c).ID, site); errors.As(err, &wait) {
		mins := int(math.Ceil(wait.Wait.Minutes()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Wait.Seconds()))))
		return c.Redirect(http.StatusSeeOther, fmt.Sprintf("%s?harvest=wait&in=%d", page, mins))
	} else if errors.As(err, &quota) {
		return c.Redirect(http.StatusSeeOther, page+"?harvest=quota")
	} else if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, page+"?harvest=started")
}

// unfollowConfirm asks before unfollowing: the site's feeds in a reader
// keep their address, but stop changing once its last follower leaves.
func (s *Server) unfollowConfirm(c echo.Context) error {
	site, err := s.followedSite(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, "confirm", "Unfollow "+siteName(site), confirmData{
		Question: "Unfollow " + siteName(site) + "?",
		Explain:  "It leaves your dashboard and your OPML export. If nobody else here follows it, tidings stops harvesting it and its feeds stop changing. You can follow it again at any time.",
		Action:   s.abs(sitePath(site) + "/unfollow"),
		Button:   "Unfollow",
		Cancel:   s.abs(sitePath(site)),
	})
}

func (s *Server) siteUnfollow(c echo.Context) error {
	site, _, err := s.pathSite(c)
	if err != nil {
		return err
	}
	err = s.follow.Unfollow(c.Request().Context(), currentUser(c).ID, site.ID)
	if errors.Is(err, db.ErrNotFound) {
		return errNotFollowed
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs("")+"?unfollowed="+site.PublicID)
}

type collectionPageData struct {
	View    collectionView
	Site    db.Site
	SiteURL string
	Changes []changeView
}

func (s *Server) collectionPage(c echo.Context) error {
	col, numeric, err := s.pathCollection(c)
	if err != nil {
		return err
	}
	if numeric {
		return s.movedTo(c, collectionPath(col))
	}
	ctx := c.Request().Context()
	site, err := s.store.SiteByID(ctx, col.SiteID)
	if err != nil {
		return err
	}
	changes, err := s.store.FeedChanges(ctx, db.Scope{CollectionID: col.ID}, 50)
	if err != nil {
		return err
	}
	d := collectionPageData{View: s.collectionView(col), Site: site, SiteURL: s.abs(sitePath(site))}
	for i, ch := range changes {
		v := newChangeView(ch, "", i)
		s.linkWhole(&v, col)
		d.Changes = append(d.Changes, v)
	}
	return s.render(c, http.StatusOK, "collection", col.Title, d)
}
