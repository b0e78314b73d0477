package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// migrations is append-only: a released step is never edited, only followed
// by another. The schema version is the number of steps applied, kept in
// PRAGMA user_version on SQLite and in the schema_version table on
// PostgreSQL. Both engines run the same list, so that a version means the
// same tables and columns on either, each step written once per engine in
// that engine's dialect and types (see step). PostgreSQL's first step made
// the schema of steps 1 to 18 at once, since no PostgreSQL database
// predates step 18: its steps 2 to 18 have nothing to do.
var migrations = []step{
	{sqlite: `
CREATE TABLE sites (
	id              INTEGER PRIMARY KEY,
	url             TEXT NOT NULL UNIQUE,
	input_url       TEXT NOT NULL,
	source_url      TEXT NOT NULL DEFAULT '',
	title           TEXT NOT NULL DEFAULT '',
	created_at      TEXT NOT NULL,
	last_harvest_at TEXT,
	next_harvest_at TEXT,
	last_error      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE collections (
	id                INTEGER PRIMARY KEY,
	site_id           INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	protocol          TEXT NOT NULL,
	key               TEXT NOT NULL,
	source_url        TEXT NOT NULL,
	title             TEXT NOT NULL DEFAULT '',
	active            INTEGER NOT NULL DEFAULT 1,
	created_at        TEXT NOT NULL,
	last_processed_at TEXT,
	last_success_at   TEXT,
	last_harvest_at   TEXT,
	last_error        TEXT NOT NULL DEFAULT '',
	UNIQUE (site_id, protocol, key)
);
CREATE TABLE runs (
	id            INTEGER PRIMARY KEY,
	site_id       INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	collection_id INTEGER REFERENCES collections(id) ON DELETE CASCADE,
	started_at    TEXT NOT NULL,
	finished_at   TEXT NOT NULL,
	documents     INTEGER NOT NULL DEFAULT 0,
	not_modified  INTEGER NOT NULL DEFAULT 0,
	changes       INTEGER NOT NULL DEFAULT 0,
	backfilled    INTEGER NOT NULL DEFAULT 0,
	lastmod_only  INTEGER NOT NULL DEFAULT 0,
	warnings      TEXT NOT NULL DEFAULT '',
	error         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_collection ON runs (collection_id, changes, finished_at);
CREATE INDEX runs_site ON runs (site_id, finished_at);
CREATE TABLE changes (
	id            INTEGER PRIMARY KEY,
	collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	kind          TEXT NOT NULL CHECK (kind IN ('created', 'updated', 'deleted')),
	datetime      TEXT NOT NULL,
	run_id        INTEGER REFERENCES runs(id) ON DELETE SET NULL,
	source        TEXT NOT NULL DEFAULT '',
	title         TEXT NOT NULL DEFAULT '',
	summary       TEXT NOT NULL DEFAULT '',
	from_lastmod  INTEGER NOT NULL DEFAULT 0,
	UNIQUE (collection_id, url, kind, datetime)
);
CREATE INDEX changes_run ON changes (run_id);
CREATE INDEX changes_feed ON changes (collection_id, datetime);
CREATE TABLE fetch_state (
	site_id       INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	etag          TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	memo          TEXT NOT NULL DEFAULT '',
	fetched_at    TEXT NOT NULL,
	PRIMARY KEY (site_id, url)
);
`, postgres: postgresSchema},
	{sqlite: `
CREATE TABLE users (
	id            INTEGER PRIMARY KEY,
	name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
	password_hash TEXT NOT NULL,
	is_admin      INTEGER NOT NULL DEFAULT 0,
	feed_token    TEXT NOT NULL UNIQUE,
	created_at    TEXT NOT NULL
);
CREATE TABLE sessions (
	token_hash TEXT PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE TABLE invites (
	id         INTEGER PRIMARY KEY,
	token      TEXT NOT NULL UNIQUE,
	created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL,
	used_by    INTEGER REFERENCES users(id) ON DELETE SET NULL,
	used_at    TEXT
);
CREATE TABLE follows (
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	site_id    INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	created_at TEXT NOT NULL,
	PRIMARY KEY (user_id, site_id)
);
CREATE INDEX follows_site ON follows (site_id);
CREATE TABLE imports (
	id         INTEGER PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	created_at TEXT NOT NULL,
	skipped    TEXT NOT NULL DEFAULT ''
);
CREATE TABLE discoveries (
	id          INTEGER PRIMARY KEY,
	user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	import_id   INTEGER REFERENCES imports(id) ON DELETE CASCADE,
	input_url   TEXT NOT NULL,
	status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'followed', 'already', 'failed')),
	site_id     INTEGER REFERENCES sites(id) ON DELETE SET NULL,
	message     TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	finished_at TEXT
);
CREATE INDEX discoveries_user ON discoveries (user_id, id);
CREATE INDEX discoveries_import ON discoveries (import_id);
`},
	{sqlite: `
ALTER TABLE changes ADD COLUMN author TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE collections ADD COLUMN state TEXT NOT NULL DEFAULT '';
CREATE TABLE pages (
	collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	modified      TEXT,
	hash          TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (collection_id, url)
) WITHOUT ROWID;
CREATE TABLE processed (
	collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	processed_at  TEXT NOT NULL,
	PRIMARY KEY (collection_id, url)
) WITHOUT ROWID;
`},
	{sqlite: `
CREATE TABLE outages (
	id             INTEGER PRIMARY KEY,
	collection_id  INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
	started_at     TEXT NOT NULL,
	last_failed_at TEXT NOT NULL,
	ended_at       TEXT,
	failures       INTEGER NOT NULL DEFAULT 1,
	error          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX outages_collection ON outages (collection_id, started_at);
CREATE UNIQUE INDEX outages_open ON outages (collection_id) WHERE ended_at IS NULL;
INSERT INTO outages (collection_id, started_at, last_failed_at, failures, error)
SELECT c.id, min(r.finished_at), max(r.finished_at), count(*), c.last_error
FROM collections c JOIN runs r ON r.collection_id = c.id AND r.error <> ''
	AND r.finished_at > COALESCE((SELECT max(ok.finished_at) FROM runs ok WHERE ok.collection_id = c.id AND ok.error = ''), '')
WHERE c.last_error <> ''
GROUP BY c.id;
`},
	{sqlite: `
ALTER TABLE sites ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sites ADD COLUMN failing_since TEXT;
`},
	// 6: when a site was last discovered in full; harvests in between
	// re-read only its Source Description.
	{sqlite: `
ALTER TABLE sites ADD COLUMN discovered_at TEXT;
`},
	// 7: a digest of each fetched body, so that a document served again
	// unchanged by a server without validators is not parsed again.
	{sqlite: `
ALTER TABLE fetch_state ADD COLUMN digest TEXT NOT NULL DEFAULT '';
`},
	// 8: a page's title and summary in columns of their own, so that every
	// protocol can keep them and a deleted page's entry can be titled. SCP
	// kept them inside hash as "<sha256 hex> <JSON [title, summary]>";
	// those rows keep the bare digest.
	{sqlite: `
ALTER TABLE pages ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN summary TEXT NOT NULL DEFAULT '';
UPDATE pages SET
	title = CASE WHEN json_valid(substr(hash, instr(hash, ' ') + 1))
		AND json_type(substr(hash, instr(hash, ' ') + 1), '$[0]') = 'text'
		THEN json_extract(substr(hash, instr(hash, ' ') + 1), '$[0]') ELSE '' END,
	summary = CASE WHEN json_valid(substr(hash, instr(hash, ' ') + 1))
		AND json_type(substr(hash, instr(hash, ' ') + 1), '$[1]') = 'text'
		THEN json_extract(substr(hash, instr(hash, ' ') + 1), '$[1]') ELSE '' END,
	hash = substr(hash, 1, instr(hash, ' ') - 1)
WHERE instr(hash, ' ') > 0
	AND collection_id IN (SELECT id FROM collections WHERE protocol = 'scp');
`},
	// 9: a site whose last follower left is no longer harvested and its
	// feeds have ended; its history is deleted later, its row kept so that
	// its feeds can say so and a new follower brings it back. Triggers
	// keep this true however a follow goes (unfollowing, deleting an
	// account) or comes back. Sites without followers before this step
	// are left harvested: nothing tells the CLI's own follows from them.
	{sqlite: `
ALTER TABLE sites ADD COLUMN unfollowed_at TEXT;
ALTER TABLE sites ADD COLUMN history_deleted_at TEXT;
CREATE TRIGGER follows_last_left AFTER DELETE ON follows
WHEN NOT EXISTS (SELECT 1 FROM follows WHERE site_id = OLD.site_id)
BEGIN
	UPDATE sites SET unfollowed_at = strftime('%Y-%m-%dT%H:%M:%S.000000000Z', 'now') WHERE id = OLD.site_id;
END;
CREATE TRIGGER follows_back AFTER INSERT ON follows
BEGIN
	UPDATE sites SET unfollowed_at = NULL, history_deleted_at = NULL
	WHERE id = NEW.site_id AND unfollowed_at IS NOT NULL;
END;
`},
	// 10: page snapshots, the latest per page of a site whatever the
	// collections listing it, and the text a change brought with it.
	// text_change is '' while unknown, else 'changed' or 'unchanged'; diff
	// is the change's text diff as JSON, kept as history once the next
	// snapshot replaces the text.
	{sqlite: `
ALTER TABLE changes ADD COLUMN text_change TEXT NOT NULL DEFAULT '';
ALTER TABLE changes ADD COLUMN diff TEXT NOT NULL DEFAULT '';
CREATE TABLE snapshots (
	site_id       INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	final_url     TEXT NOT NULL DEFAULT '',
	status        INTEGER NOT NULL DEFAULT 0,
	content_type  TEXT NOT NULL DEFAULT '',
	title         TEXT NOT NULL DEFAULT '',
	size          INTEGER NOT NULL DEFAULT 0,
	content_hash  TEXT NOT NULL DEFAULT '',
	text_hash     TEXT NOT NULL DEFAULT '',
	text          BLOB,
	etag          TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	fetched_at    TEXT NOT NULL,
	PRIMARY KEY (site_id, url)
);
`},
	// Public ids: the site and collection pages are public, and their
	// addresses should not let anyone count or walk every site followed
	// here. Sixteen random bytes, filled in for existing rows and by a
	// trigger for new ones, so that no INSERT needs to know of them.
	// Failed discoveries a person has read can be dismissed from the
	// dashboard.
	{sqlite: `
ALTER TABLE sites ADD COLUMN public_id TEXT;
UPDATE sites SET public_id = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX sites_public_id ON sites (public_id);
CREATE TRIGGER sites_public_id AFTER INSERT ON sites WHEN NEW.public_id IS NULL
BEGIN
	UPDATE sites SET public_id = lower(hex(randomblob(16))) WHERE id = NEW.id;
END;
ALTER TABLE collections ADD COLUMN public_id TEXT;
UPDATE collections SET public_id = lower(hex(randomblob(16)));
CREATE UNIQUE INDEX collections_public_id ON collections (public_id);
CREATE TRIGGER collections_public_id AFTER INSERT ON collections WHEN NEW.public_id IS NULL
BEGIN
	UPDATE collections SET public_id = lower(hex(randomblob(16))) WHERE id = NEW.id;
END;
ALTER TABLE discoveries ADD COLUMN dismissed_at TEXT;
`},
	// Snapshots stored smaller: the body's hash as its first 16 bytes,
	// the text's hash not at all (the text itself is compared), the final
	// URL only when a redirect made it differ, the media type without its
	// parameters (the text is stored decoded), Last-Modified only without
	// an ETag (a server given If-None-Match ignores If-Modified-Since), no
	// status (a snapshot is only ever of a 200); and how the text was
	// read, so the next version is read the same way. Pages past a
	// harvest's budget of page fetches wait in snapshot_queue for a later
	// one, one row a page naming its latest change.
	{sqlite: `
CREATE TABLE snapshots_new (
	site_id       INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	final_url     TEXT NOT NULL DEFAULT '',
	content_type  TEXT NOT NULL DEFAULT '',
	title         TEXT NOT NULL DEFAULT '',
	size          INTEGER NOT NULL DEFAULT 0,
	content_hash  BLOB NOT NULL DEFAULT x'',
	text          BLOB,
	method        TEXT NOT NULL DEFAULT '',
	etag          TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	fetched_at    TEXT NOT NULL,
	PRIMARY KEY (site_id, url)
);
INSERT INTO snapshots_new (site_id, url, final_url, content_type, title, size, content_hash, text, etag, last_modified, fetched_at)
SELECT site_id, url, CASE WHEN final_url = url THEN '' ELSE final_url END,
	lower(trim(CASE WHEN instr(content_type, ';') > 0 THEN substr(content_type, 1, instr(content_type, ';') - 1) ELSE content_type END)),
	title, size, coalesce(substr(unhex(content_hash), 1, 16), x''), CASE WHEN text_hash = '' THEN NULL ELSE text END,
	etag, CASE WHEN etag != '' THEN '' ELSE last_modified END, fetched_at
FROM snapshots;
DROP TABLE snapshots;
ALTER TABLE snapshots_new RENAME TO snapshots;
CREATE TABLE snapshot_queue (
	site_id       INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
	kind          TEXT NOT NULL,
	datetime      TEXT NOT NULL,
	PRIMARY KEY (site_id, url)
);
CREATE INDEX snapshot_queue_due ON snapshot_queue (collection_id, datetime);
`},
	// 13: the first complete harvest of a collection is its feed's
	// "now following" entry, whatever the age of what it found: following
	// marks that run, pages counts the collection's pages then, and
	// last_change_id bounds the changes it lists, so that the entry says
	// the same on every request. Collections harvested before this step
	// get theirs from their first run without an error. A follow and the
	// discovery that made it keep the name a reader's OPML file gave the
	// site.
	{sqlite: `
ALTER TABLE runs ADD COLUMN following INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pages INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN last_change_id INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET following = 1,
	pages = (SELECT count(DISTINCT ch.url) FROM changes ch
		WHERE ch.collection_id = runs.collection_id AND (ch.run_id IS NULL OR ch.run_id <= runs.id)),
	last_change_id = COALESCE((SELECT max(ch.id) FROM changes ch
		WHERE ch.collection_id = runs.collection_id AND (ch.run_id IS NULL OR ch.run_id <= runs.id)), 0)
WHERE id IN (SELECT min(id) FROM runs WHERE collection_id IS NOT NULL AND error = '' GROUP BY collection_id);
CREATE INDEX runs_following ON runs (collection_id, finished_at) WHERE following = 1;
ALTER TABLE discoveries ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE follows ADD COLUMN title TEXT NOT NULL DEFAULT '';
`},
	// 14: when a page was last read to check it, for sources whose dates
	// cannot be trusted (plain sitemaps): the oldest checks go first.
	{sqlite: `
ALTER TABLE pages ADD COLUMN checked_at TEXT;
`},
	// 15: the pages a "pages" collection watches, each with its distance
	// in links from where the crawl started (new links are followed only
	// so far), when it was last read (the oldest are read first), and
	// whether a person added it by its address (it is watched whatever
	// the links say). IF NOT EXISTS: tests of earlier steps rewind the
	// version alone, and this step needs no undoing for them.
	{sqlite: `
CREATE TABLE IF NOT EXISTS watched_pages (
	collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
	url           TEXT NOT NULL,
	depth         INTEGER NOT NULL DEFAULT 0,
	checked_at    TEXT NOT NULL,
	by_hand       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (collection_id, url)
);
`},
	// 16: retention. pruned_until is the newest change time the sweep
	// deleted of a collection, so that its feeds can say where the history
	// they keep ends. stored_bytes is what a site's rows take, measured by
	// the sweep at measured_at (a site harvested since is measured again),
	// for the quotas and the admin page.
	{sqlite: `
ALTER TABLE collections ADD COLUMN pruned_until TEXT;
ALTER TABLE sites ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sites ADD COLUMN measured_at TEXT;
`},
	// 17: a collection handed over to another source (the site began or
	// stopped publishing a more precise one) until the new source's first
	// harvest: that harvest takes what it finds as seen, but for what
	// changed since the old source's last one.
	{sqlite: `
ALTER TABLE collections ADD COLUMN handed_over INTEGER NOT NULL DEFAULT 0;
`},
	// 18: settings of this tidings that outlive one process, such as the
	// public address serve was last given, which the commands that print
	// feed addresses use. IF NOT EXISTS, as in step 15.
	{sqlite: `
CREATE TABLE IF NOT EXISTS settings (
	key        TEXT PRIMARY KEY,
	value      TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
`},
	// 19: what a site's pages hold that is no news: rules people give
	// (a text, or a CSS selector for watched pages) and the shapes of
	// lines a harvest learned change on many pages at once. IF NOT
	// EXISTS, as in step 15.
	{sqlite: `
CREATE TABLE IF NOT EXISTS ignore_rules (
	id         INTEGER PRIMARY KEY,
	site_id    INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('text', 'css', 'learned')),
	pattern    TEXT NOT NULL,
	created_at TEXT NOT NULL,
	UNIQUE (site_id, kind, pattern)
);
`, postgres: `
CREATE TABLE IF NOT EXISTS ignore_rules (
	id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	site_id    BIGINT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	kind       TEXT COLLATE "C" NOT NULL CHECK (kind IN ('text', 'css', 'learned')),
	pattern    TEXT COLLATE "C" NOT NULL,
	created_at TEXT COLLATE "C" NOT NULL,
	UNIQUE (site_id, kind, pattern)
);
`},
	// 20: notifications. A person's e-mail digest (the address once
	// confirmed, the one waiting for its link, how often) and push
	// targets, each with the last harvest run it has told of; and the
	// outbox, where a message is recorded before it is sent and marked
	// after, so that a crash loses none and repeats only the one in
	// flight. claimed_until is the lease of the process sending it. IF NOT
	// EXISTS, as in step 15.
	{sqlite: `
CREATE TABLE IF NOT EXISTS notify_settings (
	user_id       INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
	email         TEXT NOT NULL DEFAULT '',
	pending_email TEXT NOT NULL DEFAULT '',
	confirm_hash  TEXT NOT NULL DEFAULT '',
	confirm_until TEXT,
	every         TEXT NOT NULL DEFAULT 'daily' CHECK (every IN ('daily', 'weekly', 'off')),
	push_secret   TEXT NOT NULL DEFAULT '',
	digest_after  INTEGER NOT NULL DEFAULT 0,
	digest_at     TEXT
);
CREATE TABLE IF NOT EXISTS push_targets (
	id         INTEGER PRIMARY KEY,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	url        TEXT NOT NULL,
	site_id    INTEGER REFERENCES sites(id) ON DELETE CASCADE,
	after_run  INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS push_targets_user ON push_targets (user_id);
CREATE TABLE IF NOT EXISTS outbox (
	id            INTEGER PRIMARY KEY,
	user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	target_id     INTEGER REFERENCES push_targets(id) ON DELETE CASCADE,
	kind          TEXT NOT NULL,
	address       TEXT NOT NULL,
	message       TEXT NOT NULL,
	created_at    TEXT NOT NULL,
	attempts      INTEGER NOT NULL DEFAULT 0,
	next_at       TEXT NOT NULL,
	claimed_until TEXT,
	sent_at       TEXT,
	failed_at     TEXT,
	error         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX IF NOT EXISTS outbox_user ON outbox (user_id, created_at);
`, postgres: `
CREATE TABLE IF NOT EXISTS notify_settings (
	user_id       BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
	email         TEXT COLLATE "C" NOT NULL DEFAULT '',
	pending_email TEXT COLLATE "C" NOT NULL DEFAULT '',
	confirm_hash  TEXT COLLATE "C" NOT NULL DEFAULT '',
	confirm_until TEXT COLLATE "C",
	every         TEXT COLLATE "C" NOT NULL DEFAULT 'daily' CHECK (every IN ('daily', 'weekly', 'off')),
	push_secret   TEXT COLLATE "C" NOT NULL DEFAULT '',
	digest_after  BIGINT NOT NULL DEFAULT 0,
	digest_at     TEXT COLLATE "C"
);
CREATE TABLE IF NOT EXISTS push_targets (
	id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	url        TEXT COLLATE "C" NOT NULL,
	site_id    BIGINT REFERENCES sites(id) ON DELETE CASCADE,
	after_run  BIGINT NOT NULL DEFAULT 0,
	created_at TEXT COLLATE "C" NOT NULL
);
CREATE INDEX IF NOT EXISTS push_targets_user ON push_targets (user_id);
CREATE TABLE IF NOT EXISTS outbox (
	id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	user_id       BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	target_id     BIGINT REFERENCES push_targets(id) ON DELETE CASCADE,
	kind          TEXT COLLATE "C" NOT NULL,
	address       TEXT COLLATE "C" NOT NULL,
	message       TEXT COLLATE "C" NOT NULL,
	created_at    TEXT COLLATE "C" NOT NULL,
	attempts      BIGINT NOT NULL DEFAULT 0,
	next_at       TEXT COLLATE "C" NOT NULL,
	claimed_until TEXT COLLATE "C",
	sent_at       TEXT COLLATE "C",
	failed_at     TEXT COLLATE "C",
	error         TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX IF NOT EXISTS outbox_user ON outbox (user_id, created_at);
`},
	// 21: several processes sharing one database. host_leases says which
	// process works on a host, until when (microseconds since 1970, on
	// the clock of the engine's server: see HoldHost); a lease is kept a
	// host delay past the work, so that the next request to the host,
	// from any process, comes no sooner. A discovery is claimed by the
	// process running it, until its claim expires.
	{sqlite: `
CREATE TABLE host_leases (
	host       TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	held_until INTEGER NOT NULL
);
ALTER TABLE discoveries ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
ALTER TABLE discoveries ADD COLUMN claimed_until TEXT;
CREATE INDEX discoveries_pending ON discoveries (id) WHERE status = 'pending';
`, postgres: `
CREATE TABLE host_leases (
	host       TEXT COLLATE "C" PRIMARY KEY,
	holder     TEXT COLLATE "C" NOT NULL,
	held_until BIGINT NOT NULL
);
ALTER TABLE discoveries ADD COLUMN claimed_by TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE discoveries ADD COLUMN claimed_until TEXT COLLATE "C";
CREATE INDEX discoveries_pending ON discoveries (id) WHERE status = 'pending';
`},
	// 22: a rule a harvest switched off (it cost more than a rule may,
	// or a newer tidings no longer takes it), with the reason, for the
	// person who gave it.
	{sqlite: `
ALTER TABLE ignore_rules ADD COLUMN off_reason TEXT NOT NULL DEFAULT '';
`, postgres: `
ALTER TABLE ignore_rules ADD COLUMN off_reason TEXT COLLATE "C" NOT NULL DEFAULT '';
`},
	// 23: each attempt at sending a message, when, which the hourly
	// limits count: a failed attempt or a retry opens a connection as a
	// message sent does. Attempts outlive their message and push target
	// (no foreign key to either), so that removing a target and adding
	// it again does not start its person's hour afresh. IF NOT EXISTS,
	// as in step 15.
	{sqlite: `
CREATE TABLE IF NOT EXISTS outbox_attempts (
	user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	target_id INTEGER,
	at        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_attempts_user ON outbox_attempts (user_id, at);
`, postgres: `
CREATE TABLE IF NOT EXISTS outbox_attempts (
	user_id   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	target_id BIGINT,
	at        TEXT COLLATE "C" NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_attempts_user ON outbox_attempts (user_id, at);
`},
	// 24: a person's own rules. A rule's user_id is the person it is for
	// (their dashboard, all-in-one feed, digests and pushes); NULL is a
	// rule for everyone, which an admin or the operator gave, or which a
	// harvest learned, and which the site's public feeds follow. The
	// rules from before were given for everyone, and stay so. Two people
	// may each have the same rule, so the table is rebuilt without its
	// UNIQUE (site_id, kind, pattern). hidden_changes are the changes a
	// person's rules leave out of what they read. Written to run again
	// over itself: tests of earlier steps rewind the version alone.
	{sqlite: `
CREATE TABLE ignore_rules_next (
	id         INTEGER PRIMARY KEY,
	site_id    INTEGER NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
	user_id    INTEGER REFERENCES users(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL CHECK (kind IN ('text', 'css', 'learned')),
	pattern    TEXT NOT NULL,
	created_at TEXT NOT NULL,
	off_reason TEXT NOT NULL DEFAULT ''
);
INSERT INTO ignore_rules_next (id, site_id, kind, pattern, created_at, off_reason)
	SELECT id, site_id, kind, pattern, created_at, off_reason FROM ignore_rules;
DROP TABLE ignore_rules;
ALTER TABLE ignore_rules_next RENAME TO ignore_rules;
CREATE UNIQUE INDEX ignore_rules_once ON ignore_rules (site_id, COALESCE(user_id, 0), kind, pattern);
CREATE TABLE IF NOT EXISTS hidden_changes (
	change_id INTEGER NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
	user_id   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (change_id, user_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hidden_changes_user ON hidden_changes (user_id, change_id);
`, postgres: `
ALTER TABLE ignore_rules ADD COLUMN IF NOT EXISTS user_id BIGINT REFERENCES users(id) ON DELETE CASCADE;
ALTER TABLE ignore_rules DROP CONSTRAINT IF EXISTS ignore_rules_site_id_kind_pattern_key;
CREATE UNIQUE INDEX IF NOT EXISTS ignore_rules_once ON ignore_rules (site_id, COALESCE(user_id, 0), kind, pattern);
CREATE TABLE IF NOT EXISTS hidden_changes (
	change_id BIGINT NOT NULL REFERENCES changes(id) ON DELETE CASCADE,
	user_id   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (change_id, user_id)
);
CREATE INDEX IF NOT EXISTS hidden_changes_user ON hidden_changes (user_id, change_id);
`},
	// 25: a site pruned to stay within its share of the disk: when, the
	// share then, and up to when its changes went, for its page and the
	// admin's to say so (the feeds read pruned_until). A table rather
	// than columns of sites, so that the step runs again over itself, as
	// step 24 does.
	{sqlite: `
CREATE TABLE IF NOT EXISTS share_cuts (
	site_id      INTEGER NOT NULL PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
	cut_at       TEXT NOT NULL,
	share_bytes  INTEGER NOT NULL,
	pruned_until TEXT NOT NULL
);
`, postgres: `
CREATE TABLE IF NOT EXISTS share_cuts (
	site_id      BIGINT NOT NULL PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
	cut_at       TEXT COLLATE "C" NOT NULL,
	share_bytes  BIGINT NOT NULL,
	pruned_until TEXT COLLATE "C" NOT NULL
);
`},
	// 26: the first account, which is made an admin, named in a table of
	// at most one row, so that two sign-ups at once on an empty database
	// cannot both be first: the second to commit breaks its key. The row
	// goes with its account. IF NOT EXISTS, as in step 15.
	{sqlite: `
CREATE TABLE IF NOT EXISTS first_account (
	one     INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
	user_id INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE
);
`, postgres: `
CREATE TABLE IF NOT EXISTS first_account (
	one     BIGINT NOT NULL PRIMARY KEY CHECK (one = 1),
	user_id BIGINT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE
);
`},
	// 27: PostgreSQL's own types for instants (timestamptz) and flags
	// (boolean), which it held as SQLite does, as text and integers.
	// SQLite has no types of its own for either.
	{postgresGo: postgresNativeTypes},
	// 28: API tokens, kept by the hash of the token as sessions are: a
	// copy of the database lets no one in. A token goes with its account.
	{sqlite: `
CREATE TABLE IF NOT EXISTS api_tokens (
	id           INTEGER PRIMARY KEY,
	user_id      INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name         TEXT NOT NULL,
	token_hash   TEXT NOT NULL UNIQUE,
	created_at   TEXT NOT NULL,
	last_used_at TEXT
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON api_tokens(user_id);
`, postgres: `
CREATE TABLE IF NOT EXISTS api_tokens (
	id           BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
	user_id      BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name         TEXT COLLATE "C" NOT NULL,
	token_hash   TEXT COLLATE "C" NOT NULL UNIQUE,
	created_at   TIMESTAMPTZ NOT NULL,
	last_used_at TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON api_tokens(user_id);
`},
	// 29: the rules an import gives a site it asks to follow, kept with
	// the discovery until the site is found and followed, when they
	// become the person's own rules, in the file's order. IF NOT
	// EXISTS, as in step 15.
	{sqlite: `
CREATE TABLE IF NOT EXISTS discovery_rules (
	discovery_id INTEGER NOT NULL REFERENCES discoveries(id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	kind         TEXT NOT NULL,
	pattern      TEXT NOT NULL,
	PRIMARY KEY (discovery_id, position)
) WITHOUT ROWID;
`, postgres: `
CREATE TABLE IF NOT EXISTS discovery_rules (
	discovery_id BIGINT NOT NULL REFERENCES discoveries(id) ON DELETE CASCADE,
	position     BIGINT NOT NULL,
	kind         TEXT COLLATE "C" NOT NULL,
	pattern      TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (discovery_id, position)
);
`},
}

// step is one migration, written once for each engine in that engine's
// own dialect and types, so that neither is derived from the other: sqlite
// is SQLite's text; PostgreSQL's is postgres, or postgresGo when what it
// does depends on what the database holds (a column's type now, for a
// step that must run again over itself). Empty is nothing to do on that
// engine at this step; the version moves on all the same.
type step struct {
	sqlite     string
	postgres   string
	postgresGo func(context.Context, *sql.Tx) error
}

// run applies the step on engine e within tx.
func (s step) run(ctx context.Context, tx *sql.Tx, e engine) error {
	text := s.sqlite
	if e == postgresEngine {
		if s.postgresGo != nil {
			return s.postgresGo(ctx, tx)
		}
		text = s.postgres
	}
	if text == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, text)
	return err
}

// SchemaVersion is the schema this binary writes.
var SchemaVersion = len(migrations)

func (d *DB) migrate(ctx context.Context) error {
	if d.eng == postgresEngine {
		return d.migratePostgres(ctx)
	}
	v, err := d.firstVersion(ctx)
	if err != nil {
		return fmt.Errorf("db: read schema version: %w", err)
	}
	if err := checkVersion(v); err != nil || v >= d.upTo {
		return err
	}
	for {
		if done, err := d.migrateOne(ctx); done || err != nil {
			return err
		}
	}
}

// firstVersion reads the schema version on the writer's first connection.
// Connecting switches a new database to WAL, which needs the file to
// itself; when another process is doing the same, SQLite answers "database
// is locked" at once rather than through the busy timeout, so the attempt
// is repeated for a while.
func (d *DB) firstVersion(ctx context.Context) (int, error) {
	var v int
	var err error
	for range 100 {
		err = d.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
		var se sqlite3.Error
		if !errors.As(err, &se) || se.Code != sqlite3.ErrBusy {
			return v, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return 0, err
}

// migrateOne applies the next pending migration, reading the version in
// the same immediate transaction: several processes started at once on a
// new database (`tidings follow` run in parallel) take turns, and each
// finds what the others applied instead of applying it again.
func (d *DB) migrateOne(ctx context.Context) (done bool, err error) {
	var v int
	err = d.inTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return fmt.Errorf("db: read schema version: %w", err)
		}
		if err := checkVersion(v); err != nil || v >= d.upTo {
			done = true
			return err
		}
		if err := migrations[v].run(ctx, tx, sqliteEngine); err != nil {
			return fmt.Errorf("db: migration %d: %w", v+1, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			return fmt.Errorf("db: migration %d: %w", v+1, err)
		}
		return nil
	})
	return done || err != nil, err
}

// checkVersion refuses a schema newer than this binary's.
func checkVersion(v int) error {
	if v > len(migrations) {
		return fmt.Errorf("db: the database has schema version %d but this tidings knows only up to %d; run a newer tidings or restore a backup", v, len(migrations))
	}
	return nil
}
