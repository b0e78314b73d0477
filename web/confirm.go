package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"tidings/feedbuild"
)

// confirmData is a question asked before an action that cannot be taken
// back: a form page, so that it works without script.
type confirmData struct {
	Question string
	Explain  string
	Action   string // where the form posts
	Button   string
	Plain    bool   // the button does no harm: not drawn as a danger
	Cancel   string // where "Cancel" goes back to
}

// feedTokenConfirm asks before replacing the secret address of a user's
// feed: every reader subscribed to the old one loses it.
func (s *Server) feedTokenConfirm(c echo.Context) error {
	return s.render(c, http.StatusOK, "confirm", "New feed address", confirmData{
		Question: "Make a new address for your feed?",
		Explain:  "The current address, " + s.abs(feedbuild.UserFeedPath(currentUser(c).FeedToken)) + ", stops working at once: every reader subscribed to it must be given the new one. Do this if the address was shared by mistake.",
		Action:   s.abs("feed-token"),
		Button:   "Make a new address",
		Cancel:   s.abs(""),
	})
}
