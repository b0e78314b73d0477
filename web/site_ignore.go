package web

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/follow"
)

// ruleForm is the form that adds an ignore rule to a site.
type ruleForm struct {
	Kind, Pattern, Error string
	Everyone             bool
}

// siteIgnore adds a rule to a site a person follows: theirs, changing
// only what they read, or, when an admin asks, for everyone. A rule
// refused shows the page again with the form as filled.
func (s *Server) siteIgnore(c echo.Context) error {
	site, err := s.followedSite(c)
	if err != nil {
		return err
	}
	form := ruleForm{Kind: c.FormValue("kind"), Pattern: c.FormValue("pattern"), Everyone: c.FormValue("everyone") != ""}
	by := follow.Ruler{User: currentUser(c)}
	_, err = follow.IgnoreRule(c.Request().Context(), s.store, by, site.ID, form.Kind, form.Pattern, form.Everyone, time.Now())
	var bad *follow.RuleError
	if errors.As(err, &bad) {
		form.Error = bad.Msg
		return s.showSite(c, site, http.StatusUnprocessableEntity, form)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(sitePath(site))+"?rule=added#ignore")
}

// siteIgnoreRemove removes one of a followed site's rules the person may
// remove (follow.DropRule); any other answers 404, as if it did not exist.
func (s *Server) siteIgnoreRemove(c echo.Context) error {
	site, err := s.followedSite(c)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("rule"), 10, 64)
	if err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "This site has no such rule.")
	}
	err = follow.DropRule(c.Request().Context(), s.store, follow.Ruler{User: currentUser(c)}, site.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "This site has no such rule: it may have been removed already.")
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, s.abs(sitePath(site))+"?rule=removed#ignore")
}
