package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// TableCount is how many rows of one table a copy wrote.
type TableCount struct {
	Table string
	Rows  int64
}

// Copy copies every row of every table of src into the database target
// names (an SQLite file or a PostgreSQL URL, as Open takes), which must
// hold nothing yet: ids and blobs as they are stored, times and flags in
// the target's types for them (see column.convert). src is read
// in one snapshot, so a copy made while others write is consistent, and
// the target is written in one transaction, so that a failed copy leaves
// it empty. PostgreSQL's identity sequences then continue after the ids
// copied.
func Copy(ctx context.Context, src *DB, target string) ([]TableCount, error) {
	dst, err := Open(ctx, target)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	tables, err := src.tables(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: copy: list tables: %w", err)
	}
	if err := dst.refuseNonEmpty(ctx, tables); err != nil {
		return nil, err
	}
	opts := &sql.TxOptions{ReadOnly: true}
	if src.eng == postgresEngine {
		opts.Isolation = sql.LevelRepeatableRead
	}
	from, err := src.r.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("db: copy: read %w", err)
	}
	defer from.Rollback()
	var counts []TableCount
	err = dst.inTx(ctx, func(to *sql.Tx) error {
		for _, t := range tables {
			n, err := dst.copyTable(ctx, from, to, t)
			if err != nil {
				return fmt.Errorf("db: copy table %s: %w", t, err)
			}
			counts = append(counts, TableCount{t, n})
		}
		if dst.eng == postgresEngine {
			return resetIdentities(ctx, to, tables)
		}
		return nil
	})
	return counts, err
}

// tables lists the tables of the database, each after the tables its
// foreign keys point to, as the schema says: a copy then never writes a
// row before the row it names. Tables the keys leave unordered go by
// name.
func (d *DB) tables(ctx context.Context) ([]string, error) {
	names, err := queryAll(ctx, d, "list tables", d.eng.pick(
		`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`,
		`SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_version' ORDER BY table_name`),
		scanString)
	if err != nil {
		return nil, err
	}
	refs, err := d.foreignKeys(ctx, names)
	if err != nil {
		return nil, err
	}
	return keyOrder(names, refs)
}

// foreignKeys returns, for each table, the other tables its foreign
// keys point to.
func (d *DB) foreignKeys(ctx context.Context, tables []string) (map[string][]string, error) {
	refs := map[string][]string{}
	if d.eng == postgresEngine {
		pairs, err := queryAll(ctx, d, "list foreign keys", `SELECT DISTINCT t.relname, r.relname FROM pg_constraint c
		JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace
		WHERE c.contype = 'f' AND n.nspname = current_schema()`, func(row scanner) ([2]string, error) {
			var p [2]string
			return p, row.Scan(&p[0], &p[1])
		})
		for _, p := range pairs {
			refs[p[0]] = append(refs[p[0]], p[1])
		}
		return refs, err
	}
	for _, t := range tables {
		to, err := queryAll(ctx, d, "list foreign keys of "+t, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, scanString, t)
		if err != nil {
			return nil, err
		}
		refs[t] = to
	}
	return refs, nil
}

// keyOrder orders tables so that each comes after those refs says it
// points to, and otherwise as given. A table pointing to itself is
// ordered by its other keys; tables pointing to each other have no
// order a copy can take, and are an error.
func keyOrder(tables []string, refs map[string][]string) ([]string, error) {
	done := map[string]bool{}
	var out []string
	for len(out) < len(tables) {
		moved := false
		for _, t := range tables {
			if done[t] || slices.ContainsFunc(refs[t], func(r string) bool { return r != t && !done[r] && slices.Contains(tables, r) }) {
				continue
			}
			done[t], moved = true, true
			out = append(out, t)
		}
		if !moved {
			var left []string
			for _, t := range tables {
				if !done[t] {
					left = append(left, t)
				}
			}
			return nil, fmt.Errorf("db: the foreign keys of %s point to each other", strings.Join(left, ", "))
		}
	}
	return out, nil
}

func scanString(row scanner) (string, error) {
	var s string
	return s, row.Scan(&s)
}

// refuseNonEmpty refuses a target that holds a row in any table.
func (d *DB) refuseNonEmpty(ctx context.Context, tables []string) error {
	for _, t := range tables {
		var held bool
		if err := d.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+quoteIdent(t)+`)`).Scan(&held); err != nil {
			return fmt.Errorf("db: copy: check that the target is empty: %w", err)
		}
		if held {
			return fmt.Errorf("db: copy: the target already holds data (table %s); copy-db copies only into a new or empty database", t)
		}
	}
	return nil
}

// copyTable copies the rows of one table, column by column by name.
func (d *DB) copyTable(ctx context.Context, from, to *sql.Tx, table string) (int64, error) {
	cols, err := d.columns(ctx, to, table)
	if err != nil {
		return 0, err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = quoteIdent(c.name)
	}
	list := strings.Join(names, ", ")
	rows, err := from.QueryContext(ctx, `SELECT `+list+` FROM `+quoteIdent(table))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	ins, err := to.PrepareContext(ctx, `INSERT INTO `+quoteIdent(table)+` (`+list+`) VALUES (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")+`)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	vals := make([]any, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		for i, c := range cols {
			vals[i] = c.convert(vals[i])
		}
		if _, err := ins.ExecContext(ctx, vals...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// column is one column of a target table and how a value goes into it.
type column struct {
	name  string
	bytes bool // PostgreSQL's bytea, which takes no string
	flag  bool // PostgreSQL's boolean, which takes no SQLite 0 or 1
}

// convert makes a value read from one engine one the other stores as the
// first did: instants as SQLite's text (timeFormat) or PostgreSQL's
// timestamptz, which reads that text as it is, and flags as 0 and 1 or
// booleans.
func (c column) convert(v any) any {
	switch x := v.(type) {
	case string:
		if c.bytes {
			return []byte(x)
		}
	case []byte:
		if !c.bytes {
			// SQLite hands text columns' values as bytes at times;
			// PostgreSQL's text takes a string.
			return string(x)
		}
	case int64:
		if c.flag {
			return x != 0
		}
	case time.Time:
		return fmtTime(x)
	}
	return v
}

// columns lists a table's columns in the target.
func (d *DB) columns(ctx context.Context, tx *sql.Tx, table string) ([]column, error) {
	rows, err := tx.QueryContext(ctx, d.eng.pick(
		`SELECT name, upper(type) = 'BLOB', FALSE FROM pragma_table_info(?) ORDER BY cid`,
		`SELECT column_name, data_type = 'bytea', data_type = 'boolean' FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`), table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.bytes, &c.flag); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// resetIdentities moves each identity sequence past the ids copied: the
// rows came with their ids, which a sequence does not see.
func resetIdentities(ctx context.Context, tx *sql.Tx, tables []string) error {
	for _, t := range tables {
		var col string
		var seq sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT column_name, pg_get_serial_sequence(?, column_name) FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = ? AND is_identity = 'YES'`, quoteIdent(t), t).Scan(&col, &seq)
		if errors.Is(err, sql.ErrNoRows) || err == nil && !seq.Valid {
			continue
		}
		if err != nil {
			return fmt.Errorf("db: copy: find the identity of %s: %w", t, err)
		}
		next := `COALESCE((SELECT max(` + quoteIdent(col) + `) FROM ` + quoteIdent(t) + `), 0) + 1`
		if _, err := tx.ExecContext(ctx, `SELECT setval(?, `+next+`, false)`, seq.String); err != nil {
			return fmt.Errorf("db: copy: move the identity of %s: %w", t, err)
		}
	}
	return nil
}

// quoteIdent quotes a table or column name the same way for both engines.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
