package resourcesync

import "flag"

// Settings are the ResourceSync adapter's own settings.
type Settings struct {
	// StrictDatetime follows IFCC-0001 literally: entries without
	// rs:md datetime are ignored rather than dated by their lastmod.
	StrictDatetime bool
}

// RegisterFlags registers the ResourceSync settings' flags on fs.
func (s *Settings) RegisterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&s.StrictDatetime, "strict-datetime", false, "ignore change list entries without rs:md datetime, as IFCC-0001 says, instead of dating them by lastmod")
}

// Validate: every setting of ResourceSync can be used.
func (s *Settings) Validate() error { return nil }
