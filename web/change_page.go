package web

import (
	"errors"
	"html/template"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"tidings/db"
	"tidings/feedbuild"
)

var errNoChange = echo.NewHTTPError(http.StatusNotFound,
	"There is no such change of this collection here. It may have been mistyped, or it is older than what tidings keeps.")

// changePageData is one change with every line its diff keeps: where a
// feed entry, bounded, leads for the rest.
type changePageData struct {
	Change        changeView
	Collection    db.Collection
	CollectionURL string
	// Whole is every line the diff keeps; "" when the text is unknown or
	// unchanged.
	Whole template.HTML
	// From and To are the hashes of the two texts of a page replaced too
	// much for its lines to be kept; From is "" when it was not known.
	From, To string
}

// changePage shows one change of a collection with its whole diff. It is
// public as the collection's page is, which lists the same changes (a
// person's own ignore rules leave a change out of their own feed only);
// the change is looked up within the collection of the address, so that
// its number leads to no other collection's change.
func (s *Server) changePage(c echo.Context) error {
	col, numeric, err := s.pathCollection(c)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(c.Param("change"), 10, 64)
	if err != nil || id <= 0 {
		return errNoChange
	}
	if numeric {
		return s.movedTo(c, feedbuild.ChangePage(col, id))
	}
	ch, err := s.store.ChangeOf(c.Request().Context(), col.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return errNoChange
	}
	if err != nil {
		return err
	}
	d := changePageData{Change: newChangeView(ch, "", 0), Collection: col, CollectionURL: s.abs(collectionPath(col))}
	if diff, ok := feedbuild.TextDiff(ch); ok {
		// As on the collection's page, pagetext escapes every piece of
		// the site's text it writes.
		d.Whole = template.HTML(diff.WholeHTML())
		d.From, d.To = diff.ReplacedFrom, diff.Replaced
	}
	return s.render(c, http.StatusOK, "change", d.Change.Label+": "+d.Change.Name, d)
}

// linkWhole links a change whose diff the list shows in part to its
// page, in collection col.
func (s *Server) linkWhole(v *changeView, col db.Collection) {
	if v.Part && col.PublicID != "" {
		v.WholeURL = s.abs(feedbuild.ChangePage(col, v.ID))
	}
}
