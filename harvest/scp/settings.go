package scp

import (
	"flag"
	"time"

	"tidings/scpbridge"
)

// Settings are the SCP adapter's own settings. A zero field takes its
// default.
type Settings struct {
	// MaxCompressed, MaxDecompressed and MaxLine cap a collection file's
	// size as downloaded, its size after decompression and one line (one
	// page), enforced while it streams (with the spec's 100:1 ratio). Their
	// defaults are the parser's own (scpbridge.DefaultLimits).
	MaxCompressed   int64
	MaxDecompressed int64
	MaxLine         int64
	// DownloadTimeout bounds one SCP file download.
	DownloadTimeout time.Duration
	// SnapshotInterval: how often a section's snapshot is read again (when
	// a newer one is offered) to catch what deltas missed, deletions above
	// all.
	SnapshotInterval time.Duration
}

// Default SCP settings besides the size caps.
const (
	DefaultDownloadTimeout  = 30 * time.Minute
	DefaultSnapshotInterval = 7 * 24 * time.Hour
)

// RegisterFlags registers the SCP settings' flags on fs, each defaulting
// to what a zero field takes.
func (s *Settings) RegisterFlags(fs *flag.FlagSet) {
	d := Settings{}.withDefaults()
	fs.Int64Var(&s.MaxCompressed, "scp-max-compressed", d.MaxCompressed, "largest SCP collection file as downloaded, in bytes")
	fs.Int64Var(&s.MaxDecompressed, "scp-max-decompressed", d.MaxDecompressed, "largest SCP collection file after decompression, in bytes")
	fs.Int64Var(&s.MaxLine, "scp-max-line", d.MaxLine, "largest single page (one line) of an SCP file, in bytes")
	fs.DurationVar(&s.SnapshotInterval, "scp-snapshot-interval", d.SnapshotInterval, "how often a section's newer SCP snapshot is read again, which reveals deleted pages")
	fs.DurationVar(&s.DownloadTimeout, "scp-download-timeout", d.DownloadTimeout, "time limit of one SCP file download")
}

// Validate: a size or time given as zero takes its default.
func (s *Settings) Validate() error { return nil }

func (s Settings) withDefaults() Settings {
	lim := s.limits().WithDefaults()
	s.MaxCompressed, s.MaxDecompressed, s.MaxLine = lim.MaxCompressed, lim.MaxDecompressed, lim.MaxLine
	if s.DownloadTimeout <= 0 {
		s.DownloadTimeout = DefaultDownloadTimeout
	}
	if s.SnapshotInterval <= 0 {
		s.SnapshotInterval = DefaultSnapshotInterval
	}
	return s
}

// limits are the caps the parser enforces while a file streams.
func (s Settings) limits() scpbridge.Limits {
	return scpbridge.Limits{MaxCompressed: s.MaxCompressed, MaxDecompressed: s.MaxDecompressed, MaxLine: s.MaxLine}
}
