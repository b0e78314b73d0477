package scp

import (
	"flag"
	"io"
	"strconv"
	"testing"
	"time"

	"tidings/scpbridge"
	"tidings/source"
)

// TestSourceSettingsFlagsAndDefaults: a zero setting takes the same
// default its flag shows, the size caps being the parser's own, and the
// flags set the fields.
func TestSourceSettingsFlagsAndDefaults(t *testing.T) {
	d := Settings{}.withDefaults()
	lim := scpbridge.DefaultLimits()
	if d.MaxCompressed != lim.MaxCompressed || d.MaxDecompressed != lim.MaxDecompressed || d.MaxLine != lim.MaxLine ||
		d.DownloadTimeout != DefaultDownloadTimeout || d.SnapshotInterval != DefaultSnapshotInterval {
		t.Errorf("SCP defaults %+v", d)
	}
	p := source.DefaultSettings()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p.RegisterFlags(fs)
	for name, want := range map[string]string{
		"strict-datetime":       "false",
		"scp-max-compressed":    strconv.FormatInt(lim.MaxCompressed, 10),
		"scp-max-decompressed":  strconv.FormatInt(lim.MaxDecompressed, 10),
		"scp-max-line":          strconv.FormatInt(lim.MaxLine, 10),
		"scp-download-timeout":  DefaultDownloadTimeout.String(),
		"scp-snapshot-interval": DefaultSnapshotInterval.String(),
	} {
		if f := fs.Lookup(name); f == nil || f.DefValue != want {
			t.Errorf("--%s: %+v, want default %s", name, f, want)
		}
	}
	scp := p[Name].(*Settings)
	if *scp != d {
		t.Errorf("registered defaults %+v, want %+v", *scp, d)
	}
	if err := fs.Parse([]string{"--scp-max-line=5", "--scp-snapshot-interval=1h"}); err != nil {
		t.Fatal(err)
	}
	if scp.MaxLine != 5 || scp.SnapshotInterval != time.Hour || scp.MaxCompressed != lim.MaxCompressed {
		t.Errorf("after parsing: %+v", *scp)
	}
	// A setting given as zero (not through flags) still takes its default.
	if got := (Settings{MaxLine: 5}).withDefaults(); got.MaxLine != 5 || got.MaxDecompressed != lim.MaxDecompressed {
		t.Errorf("partial settings: %+v", got)
	}
}
