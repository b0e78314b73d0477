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

// apiRule is an ignore rule as the API shows it.
type apiRule struct {
	ID        int64     `json:"id"`
	Kind      string    `json:"kind"`
	Pattern   string    `json:"pattern"`
	Everyone  bool      `json:"everyone"`
	OffReason string    `json:"off_reason"`
	CreatedAt time.Time `json:"created_at"`
}

func apiRuleOf(r db.IgnoreRule) apiRule {
	return apiRule{ID: r.ID, Kind: r.Kind, Pattern: r.Pattern, Everyone: r.UserID == 0, OffReason: r.OffReason, CreatedAt: apiTime(r.CreatedAt)}
}

func (s *Server) apiRules(c echo.Context) error {
	site, err := s.apiPathSite(c)
	if err != nil {
		return err
	}
	rules, err := s.store.RulesFor(c.Request().Context(), site.ID, currentUser(c).ID)
	if err != nil {
		return err
	}
	out := make([]apiRule, 0, len(rules))
	for _, r := range rules {
		out = append(out, apiRuleOf(r))
	}
	return c.JSON(http.StatusOK, map[string]any{"rules": out})
}

// apiAddRule adds a rule as the site page does. The same rule again is
// answered with the one there is, so that a retried call succeeds.
func (s *Server) apiAddRule(c echo.Context) error {
	site, err := s.apiPathSite(c)
	if err != nil {
		return err
	}
	var body struct {
		Kind     string `json:"kind"`
		Pattern  string `json:"pattern"`
		Everyone bool   `json:"everyone"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := currentUser(c)
	r, err := follow.IgnoreRule(ctx, s.store, follow.Ruler{User: u}, site.ID, body.Kind, body.Pattern, body.Everyone, time.Now())
	var bad *follow.RuleError
	if errors.As(err, &bad) {
		if same, ok := s.sameRule(c, site.ID, body.Kind, body.Pattern, body.Everyone); ok {
			return c.JSON(http.StatusOK, apiRuleOf(same))
		}
		return &apiProblem{status: http.StatusUnprocessableEntity, code: "rule_refused", detail: bad.Msg}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, apiRuleOf(r))
}

// sameRule finds the rule a person already has that is the one asked
// for again.
func (s *Server) sameRule(c echo.Context, siteID int64, kind, pattern string, everyone bool) (db.IgnoreRule, bool) {
	pattern, err := follow.CheckRule(kind, pattern)
	if err != nil {
		return db.IgnoreRule{}, false
	}
	u := currentUser(c)
	rules, err := s.store.RulesFor(c.Request().Context(), siteID, u.ID)
	if err != nil {
		return db.IgnoreRule{}, false
	}
	for _, r := range rules {
		if r.Kind == kind && r.Pattern == pattern && (r.UserID == 0) == (everyone && u.Admin) {
			return r, true
		}
	}
	return db.IgnoreRule{}, false
}

func (s *Server) apiRemoveRule(c echo.Context) error {
	site, err := s.apiPathSite(c)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("rule"), 10, 64)
	notFound := &apiProblem{status: http.StatusNotFound, code: "not_found", detail: "This site has no rule of this id that you may remove."}
	if err != nil || id <= 0 {
		return notFound
	}
	err = follow.DropRule(c.Request().Context(), s.store, follow.Ruler{User: currentUser(c)}, site.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
