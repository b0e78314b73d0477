package harvest

import "flag"

// ResourceSyncSettings are the ResourceSync adapter's own settings.
type ResourceSyncSettings struct {
	// StrictDatetime follows IFCC-0001 literally: entries without
	// rs:md datetime are ignored rather than dated by their lastmod.
	StrictDatetime bool
}

// RegisterFlags registers the ResourceSync settings' flags on fs.
func (s *ResourceSyncSettings) RegisterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&s.StrictDatetime, "strict-datetime", false, "ignore change list entries without rs:md datetime, as IFCC-0001 says, instead of dating them by lastmod")
}

// Validate: every setting of ResourceSync can be used.
func (s *ResourceSyncSettings) Validate() error { return nil }

// Strict reports whether entries without a datetime are ignored, as the
// site check words its advice.
func (s *ResourceSyncSettings) Strict() bool { return s.StrictDatetime }
