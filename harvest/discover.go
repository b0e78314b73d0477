package harvest

import (
	"tidings/db"
	"tidings/urls"
)

// maxCollections bounds the collections one site may declare.
const maxCollections = 200

// Discovery is what looking for a site's change information yielded.
type Discovery struct {
	SourceURL   string // where the site's change information is (SiteDiscovery.SetSourceURL)
	SiteTitle   string // the site's name, when asked for (SiteDiscovery.SetSiteTitle)
	Collections []db.CollectionSpec
	Tried       []string // what was looked at, as sentences, in order
	Warnings    []string
	// Warned are the Warnings with what each means to the site's owner,
	// when the source said (SiteDiscovery.Find).
	Warned []Warning
	// Broken are the documents a site publishes as change information
	// that could not be read, each a sentence naming it and why: the
	// site is then followed by what else it offers, and says so.
	Broken []string
}

// warn adds a warning.
func (d *Discovery) warn(w Warning) {
	d.Warnings = append(d.Warnings, w.Text)
	d.Warned = append(d.Warned, w)
}

// SiteRoot returns the root URL of the site that rawURL belongs to, or a
// message a person can act on.
func SiteRoot(rawURL string) (string, error) {
	root, _, err := NormalizeAddress(rawURL)
	return root, err
}

// NormalizeAddress accepts what a person types: an address with or without
// its scheme. It returns the site's root and the full input URL, or a
// *Problem saying why it is none (see urls.Normalize).
func NormalizeAddress(rawURL string) (root, input string, err error) {
	root, input, err = urls.Normalize(rawURL)
	if err != nil {
		return "", "", &Problem{Msg: err.Error(), Err: err}
	}
	return root, input, nil
}

// TriedOnce is Tried with each sentence once: several sources look at the
// same address, and each says what it met there.
func (d *Discovery) TriedOnce() []string { return once(d.Tried) }
