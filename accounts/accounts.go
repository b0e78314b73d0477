// Package accounts holds the rules of tidings accounts that do not depend
// on how they are reached: which names are allowed, how passwords are
// hashed and checked, how secret tokens (sessions, feed addresses,
// invites) are made and stored, and the registration modes. The web
// server and the CLI's user commands both follow them.
package accounts

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"regexp"
	"sync"
	"sync/atomic"

	"golang.org/x/crypto/bcrypt"
)

// Registration modes: who may create an account through the web.
const (
	RegistrationOpen   = "open"
	RegistrationInvite = "invite"
	RegistrationClosed = "closed"
)

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// maxPasswordBytes is as much as bcrypt reads.
const maxPasswordBytes = 72

var validName = regexp.MustCompile(`^[\p{L}\p{N}._-]{1,64}$`)

// ValidateName says what is wrong with an account name, or "".
func ValidateName(name string) string {
	if !validName.MatchString(name) {
		return "Use 1 to 64 letters, digits, dots, dashes or underscores."
	}
	return ""
}

// HashPassword hashes a password with bcrypt. bcrypt reads at most 72
// bytes, so longer passwords are refused rather than silently cut.
func HashPassword(pw string) (string, error) {
	if len(pw) < MinPasswordLength {
		return "", errors.New("the password must be at least 10 characters long")
	}
	if len(pw) > maxPasswordBytes {
		return "", errors.New("the password must be at most 72 bytes long")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
	return string(h), err
}

// CheckPassword tells whether pw is the password hash was made from, in
// constant time. An empty hash (a user that does not exist) is compared
// against a dummy hash, so that a sign-in takes as long either way.
func CheckPassword(hash, pw string) bool {
	dummy := hash == ""
	if dummy {
		hash = dummyHash()
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil && !dummy
}

// dummyHash is made at the first sign-in of an unknown name, not when the
// program starts: every command links this package, and a hash at start
// cost each `tidings follow` a bcrypt run (3.7 % of a big follow's CPU).
var dummyHash = sync.OnceValue(func() string {
	dummyHashes.Add(1)
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone"), bcrypt.DefaultCost)
	return string(h)
})

// dummyHashes counts the dummy hashes made, for the test that none is
// made before a sign-in asks for one.
var dummyHashes atomic.Int32

// NewToken returns a random URL-safe token of 32 bytes.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is what the store keeps of a session token: a stolen copy of
// the database then signs no one in.
func HashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// APITokenPrefix marks tidings' API tokens, so that a secret scanner, or
// a person, can tell one in a file or a log.
const APITokenPrefix = "tid_"

// NewAPIToken returns a new API token and what the store keeps of it.
func NewAPIToken() (token, hash string) {
	token = APITokenPrefix + NewToken()
	return token, HashToken(token)
}
