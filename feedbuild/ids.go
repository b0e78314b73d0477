package feedbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"tidings/db"
)

// Feed and entry ids are tag: URIs of the base URL's host. None holds a
// row number: nobody can count the collections, runs or users of a
// tidings from them, and a store whose rows are renumbered keeps them.
//
// A feed's id names its scope: "collection/<public id>", "site/<public
// id>" or "user/<hash>", dated by the scope's creation. An entry's id is
// its scope's followed by what the entry is about, hashed from values
// that never change (the collection's public id, then a run's end, a
// change's page, kind and time, or a failing streak's start). So the same
// change in a collection's feed, its site's feed and a person's feed of
// everything has three ids: a reader subscribed to several keeps each
// feed's entries whole instead of showing a shared entry in one of them.

// idScope is the part of a feed's id its entries' ids share.
type idScope struct {
	date time.Time
	name string
}

func collectionScope(col db.Collection) idScope {
	return idScope{col.CreatedAt, "collection/" + col.PublicID}
}

func siteScope(site db.Site) idScope {
	return idScope{site.CreatedAt, "site/" + site.PublicID}
}

// userScope names a user by a hash of what never changes about them: the
// user's feed token does, and their row number counts users.
func userScope(u db.User) idScope {
	return idScope{u.CreatedAt, "user/" + idHash("user", u.Name, stamp(u.CreatedAt))}
}

// perPageFeed is the suffix of a feed's id in the one-entry-per-change
// mode: the two modes are different feeds of the same scope.
const perPageFeed = "/pages"

// feedID is the id of a scope's feed.
func (b *Builder) feedID(s idScope) string { return b.tag(s.date, s.name) }

// entryID is the id in scope s of the entry about part.
func (b *Builder) entryID(s idScope, part string) string { return b.tag(s.date, s.name+"/"+part) }

// runPart is what a harvest run's digest is about: runs of a collection
// never overlap, so no two share their start and end.
func runPart(col db.Collection, run db.Run) string {
	return "run/" + idHash(col.PublicID, stamp(run.StartedAt), stamp(run.FinishedAt))
}

// changePart is what a change's entry is about: the store's uniqueness
// key of the change, so the text diff it shows does not enter it.
func changePart(col db.Collection, ch db.Change) string {
	return "change/" + idHash(col.PublicID, ch.URL, ch.Kind, stamp(ch.Datetime))
}

// outagePart is what the status entries of a failing streak are about.
func outagePart(col db.Collection, o db.Outage) string {
	return "outage/" + idHash(col.PublicID, stamp(o.StartedAt))
}

// stamp writes a time to the microsecond, as every engine the store may
// use keeps it, so that moving the store keeps the ids.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// idHash is 128 bits of SHA-256 over parts, in hex.
func idHash(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:16])
}
