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
	Users        []db.User
	Invites      []inviteView
	Sites        []adminSite
	Registration string
}

type inviteView struct {
	db.Invite
	Link    string
	Expired bool
}

type adminSite struct {
	Site      db.Site
	Followers int
}

func (s *Server) adminPage(c echo.Context) error {
	ctx := c.Request().Context()
	d := adminData{Registration: s.opts.Registration}
	var err error
	if d.Users, err = s.store.Users(ctx); err != nil {
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
	for _, site := range sites {
		d.Sites = append(d.Sites, adminSite{site, followers[site.ID]})
	}
	return s.render(c, http.StatusOK, "admin", "Admin", d)
}

func (s *Server) inviteCreate(c echo.Context) error {
	if err := s.store.CreateInvite(c.Request().Context(), accounts.NewToken(), currentUser(c).ID, s.now().Add(inviteLifetime)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs("admin"))
}
