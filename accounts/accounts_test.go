package accounts

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	for _, name := range []string{"ann", "Zoë.B-2_", strings.Repeat("x", 64)} {
		if msg := ValidateName(name); msg != "" {
			t.Errorf("ValidateName(%q) = %q, want it allowed", name, msg)
		}
	}
	for _, name := range []string{"", "ann bob", "a/b", "<ann>", strings.Repeat("x", 65)} {
		if ValidateName(name) == "" {
			t.Errorf("ValidateName(%q) allowed it", name)
		}
	}
}

func TestPasswords(t *testing.T) {
	const pw = "correct horse battery"
	hash, err := HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !CheckPassword(hash, pw) {
		t.Error("the password does not match its own hash")
	}
	if CheckPassword(hash, pw+"!") {
		t.Error("another password matches the hash")
	}
	if CheckPassword("", "not a password of anyone") {
		t.Error("a user without a hash signs in with the dummy password")
	}
	for _, bad := range []string{"short", strings.Repeat("x", 73)} {
		if _, err := HashPassword(bad); err == nil {
			t.Errorf("HashPassword accepted a password of %d bytes", len(bad))
		}
	}
}

func TestTokens(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || len(a) != 43 || strings.ContainsAny(a, "+/=") {
		t.Errorf("tokens %q and %q: want two different URL-safe tokens of 43 characters", a, b)
	}
	if HashToken(a) != HashToken(a) || HashToken(a) == HashToken(b) || strings.Contains(HashToken(a), a) {
		t.Errorf("HashToken(%q) = %q", a, HashToken(a))
	}
}
