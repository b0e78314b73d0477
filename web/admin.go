package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/accounts"
	"tidings/db"
)

// inviteLifetime is how long an invite link stays valid.
const inviteLifetime = 7 * 24 * time.Hour

type adminData struct {
	Users        []adminUser
	Invites      []inviteView
	Sites        []adminSite
	Registration string
	Storage      storageView
}

type inviteView struct {
	db.Invite
	Link    string
	Expired bool
}

type adminSite struct {
	Site      db.Site
	PageURL   string
	Followers int
	Health    siteHealth
}

func (s *Server) adminPage(c echo.Context) error {
	ctx := c.Request().Context()
	d := adminData{Registration: s.opts.Registration}
	var err error
	if d.Users, err = s.adminUsers(ctx); err != nil {
		return err
	}
	if d.Storage, err = s.storage(ctx); err != nil {
		return err
	}
	invites, err := s.store.Invites(ctx)
	if err != nil {
		return err
	}
	now := s.now()
	for _, inv := range invites {
		d.Invites = append(d.Invites, inviteView{inv, s.abs("signup") + "?invite=" + inv.Token, !inv.ExpiresAt.After(now)})
	}
	sites, err := s.store.Sites(ctx)
	if err != nil {
		return err
	}
	followers, err := s.store.Followers(ctx)
	if err != nil {
		return err
	}
	// Health counts collection errors too, as /metrics and the site page
	// do: one query for every site's collections.
	cols, err := s.store.Collections(ctx, db.CollectionFilter{ActiveOnly: true})
	if err != nil {
		return err
	}
	bySite := map[int64][]collectionView{}
	for _, col := range cols {
		bySite[col.SiteID] = append(bySite[col.SiteID], s.collectionView(col))
	}
	for _, site := range sites {
		d.Sites = append(d.Sites, adminSite{site, s.abs(sitePath(site)), followers[site.ID], healthOf(site, bySite[site.ID])})
	}
	return s.render(c, http.StatusOK, "admin", "Admin", d)
}

func (s *Server) inviteCreate(c echo.Context) error {
	if s.opts.Registration == accounts.RegistrationClosed {
		// The link would only say that registration is closed.
		return echo.NewHTTPError(http.StatusConflict, "Registration here is closed: an invite link would not let anyone sign up. Start tidings serve with --registration invite to invite people.")
	}
	if err := s.store.CreateInvite(c.Request().Context(), accounts.NewToken(), currentUser(c).ID, s.now().Add(inviteLifetime)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs("admin")+"?done=invite")
}
