package db

import (
	"context"
	"fmt"
	"time"
)

// Host leases let several processes share one database without two of
// them working on one host at once: a process takes a host's lease before
// its first request there, renews it while it works, and on release keeps
// it held a host delay longer, so that whoever takes the host next waits
// that long after its last request. A process that dies holding a lease
// loses it when it expires.
//
// Lease times are microseconds since 1970 on the database's clock (see
// clockMicros).

// TakeHost takes host's lease for holder, for ttl, unless another holder
// has it; it reports whether holder has it now. A holder may take again a
// lease it holds: within one process, the host pool keeps its own work
// on a host apart, and its client paces its requests.
func (d *DB) TakeHost(ctx context.Context, host, holder string, ttl time.Duration) (bool, error) {
	now := d.clockMicros()
	return d.changesOne(ctx, "take the lease of "+host, `INSERT INTO host_leases (host, holder, held_until) VALUES (?1, ?2, `+now+` + ?3)
ON CONFLICT (host) DO UPDATE SET holder = excluded.holder, held_until = excluded.held_until
WHERE host_leases.held_until <= `+now+` OR host_leases.holder = ?2`, host, holder, ttl.Microseconds())
}

// HoldHost keeps holder's lease of host for d from now: to renew it while
// working (d the lease's time to live), or to release it (d the host
// delay). It reports false when holder no longer has the lease: it
// expired and another holder took it.
func (d *DB) HoldHost(ctx context.Context, host, holder string, dur time.Duration) (bool, error) {
	return d.changesOne(ctx, "keep the lease of "+host, `UPDATE host_leases SET held_until = `+d.clockMicros()+` + ?3 WHERE host = ?1 AND holder = ?2`,
		host, holder, dur.Microseconds())
}

// changesOne runs a statement that writes one row or none, and reports
// whether it wrote one: a lease or a claim taken.
func (d *DB) changesOne(ctx context.Context, what, query string, args ...any) (bool, error) {
	res, err := d.w.ExecContext(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("db: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("db: %s: %w", what, err)
	}
	return n == 1, nil
}

// HostLease is who holds a host's lease, until when.
type HostLease struct {
	Host   string
	Holder string
	Until  time.Time
}

// HostLeases lists the leases stored, expired ones included, by host.
func (d *DB) HostLeases(ctx context.Context) ([]HostLease, error) {
	return queryAll(ctx, d, "list host leases", `SELECT host, holder, held_until FROM host_leases ORDER BY host`,
		func(row scanner) (HostLease, error) {
			var l HostLease
			var us int64
			err := row.Scan(&l.Host, &l.Holder, &us)
			l.Until = time.UnixMicro(us).UTC()
			return l, err
		})
}

// PruneHostLeases deletes the leases that ended more than an hour ago: a
// host no longer harvested should not keep a row for ever.
func (d *DB) PruneHostLeases(ctx context.Context) error {
	if _, err := d.w.ExecContext(ctx, `DELETE FROM host_leases WHERE held_until < `+d.clockMicros()+` - ?`, time.Hour.Microseconds()); err != nil {
		return fmt.Errorf("db: delete old host leases: %w", err)
	}
	return nil
}

// ClaimDiscovery claims a pending discovery for holder, unless another
// holder's claim runs yet; it reports whether holder has it. Renewing is
// claiming again. The claim lasts until-now, from now on the database's
// clock: the caller's clock says only how long, so that a process whose
// clock runs ahead cannot take a claim before it ends. The claim is one
// conditional UPDATE of the discovery's row: PostgreSQL re-reads the row
// a concurrent claim changed before it decides, and SQLite has one
// writer, so of two processes claiming at once one wins.
func (d *DB) ClaimDiscovery(ctx context.Context, id int64, holder string, now, until time.Time) (bool, error) {
	return d.changesOne(ctx, fmt.Sprintf("claim discovery %d", id), `UPDATE discoveries SET claimed_by = ?1, claimed_until = `+d.clockTime("?2")+`
WHERE id = ?3 AND status = 'pending' AND (claimed_until IS NULL OR claimed_until <= `+d.clockTime("0")+` OR claimed_by = ?1)`,
		holder, until.Sub(now).Microseconds(), id)
}

// ClaimableDiscoveries lists the pending discoveries no process has a
// claim on, oldest first: those a process may start. Claims end on the
// database's clock, so now, the caller's, is not asked.
func (d *DB) ClaimableDiscoveries(ctx context.Context, now time.Time) ([]Discovery, error) {
	return queryAll(ctx, d, "list discoveries to claim", `SELECT `+discoveryCols+` FROM discoveries
WHERE status = 'pending' AND (claimed_until IS NULL OR claimed_until <= `+d.clockTime("0")+`) ORDER BY id`, scanDiscovery)
}
