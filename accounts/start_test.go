package accounts

import (
	"os"
	"os/exec"
	"testing"
)

// TestNoHashAtStart checks that a program linking this package hashes no
// password until a sign-in of an unknown name needs the dummy hash: the
// test runs alone in a fresh process, where nothing but the package's
// initialisation ran before it.
func TestNoHashAtStart(t *testing.T) {
	if os.Getenv("ACCOUNTS_FRESH_PROCESS") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoHashAtStart$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ACCOUNTS_FRESH_PROCESS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
	}
	if n := dummyHashes.Load(); n != 0 {
		t.Fatalf("%d dummy hash(es) made before any sign-in", n)
	}
	if CheckPassword("", "not a password of anyone") {
		t.Fatal("an unknown name signed in with the dummy hash's password")
	}
	if n := dummyHashes.Load(); n != 1 {
		t.Fatalf("%d dummy hash(es) after a sign-in of an unknown name, want 1", n)
	}
	CheckPassword("", "another try")
	if n := dummyHashes.Load(); n != 1 {
		t.Fatalf("%d dummy hash(es) after two sign-ins, want 1", n)
	}
}
