package main

import (
	"flag"
	"time"

	"tidings/harvest"
	"tidings/scpbridge"
)

// scpConfig sizes SCP downloads; defaults suit a small VPS.
type scpConfig struct {
	MaxCompressed    int64
	MaxDecompressed  int64
	MaxLine          int64
	SnapshotInterval time.Duration
	DownloadTimeout  time.Duration
}

func scpFlags(fs *flag.FlagSet, c *scpConfig) {
	lim := scpbridge.DefaultLimits()
	fs.Int64Var(&c.MaxCompressed, "scp-max-compressed", lim.MaxCompressed, "largest SCP collection file as downloaded, in bytes")
	fs.Int64Var(&c.MaxDecompressed, "scp-max-decompressed", lim.MaxDecompressed, "largest SCP collection file after decompression, in bytes")
	fs.Int64Var(&c.MaxLine, "scp-max-line", lim.MaxLine, "largest single page (one line) of an SCP file, in bytes")
	fs.DurationVar(&c.SnapshotInterval, "scp-snapshot-interval", harvest.DefaultSCPSnapshotInterval, "how often a section's newer SCP snapshot is read again, which reveals deleted pages")
	fs.DurationVar(&c.DownloadTimeout, "scp-download-timeout", harvest.DefaultSCPDownloadTimeout, "time limit of one SCP file download")
}
