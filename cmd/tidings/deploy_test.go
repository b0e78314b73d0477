package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdUnitIsConfined holds deploy/tidings.service to a memory cap and
// to systemd's own exposure score (systemd-analyze security: 0 is fully
// confined, 10 not at all), where systemd-analyze is installed.
func TestSystemdUnitIsConfined(t *testing.T) {
	unit := filepath.Join("..", "..", "deploy", "tidings.service")
	data, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MemoryMax=", "GOMEMLIMIT=", "ProtectSystem=strict", "NoNewPrivileges=yes", "PrivateTmp=yes", "IPAddressDeny="} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	// --threshold is on systemd's 0-100 scale: 15 is an exposure of 1.5.
	out, err := exec.Command(analyze, "security", "--offline=true", "--threshold=15", unit).CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Errorf("systemd-analyze security: %v: %s", err, lines[len(lines)-1])
	}
}
