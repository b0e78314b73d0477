package db

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// changeBatch is how many changes one INSERT takes on PostgreSQL: each
// column's values go as one array parameter, so the statement's text
// and its parameters stay the same size whatever the batch's.
const changeBatch = 5000

// changeColumns are the columns of changes insertChangesInBatches fills,
// in the order it binds them.
var changeColumns = []string{"collection_id", "url", "kind", "datetime", "run_id", "source", "title", "summary",
	"author", "language", "tags", "from_lastmod", "text_change", "diff"}

// insertChangesInBatches is insertChanges for PostgreSQL, where every
// statement is a round trip to the server: a row a statement took 3.4 s
// for 50,000 changes (BenchmarkSaveBigHarvest), against 0.4 s on SQLite,
// and a multi-row VALUES of 14 parameters a row still 1.0 s, most of it
// the server's planning of 14,000 parameters a statement and the
// client's binding of them. Here each column of a batch is one text
// array, unnested and cast to the column's own type (read from the
// catalog, so the statement follows the schema). The rows go in the
// same order, so they get the same ids; a duplicate, already stored or
// earlier in the batch, is skipped as one row at a time would be, and
// RETURNING says which rows were new and of which kind.
func (d *DB) insertChangesInBatches(ctx context.Context, tx *sql.Tx, run Run, changes []Change) (fresh, history int, err error) {
	q, isBool, err := d.changeInsert(ctx, tx)
	if err != nil {
		return 0, 0, err
	}
	sorted := byKey(changes)
	cols := make([][]*string, len(changeColumns)-1)
	for start := 0; start < len(sorted); start += changeBatch {
		batch := sorted[start:min(start+changeBatch, len(sorted))]
		for i := range cols {
			cols[i] = cols[i][:0]
		}
		runID := strconv.FormatInt(run.ID, 10)
		yes, no := "1", "0"
		if isBool {
			yes, no = "true", "false"
		}
		for _, c := range batch {
			var r *string
			if !c.History {
				r = &runID
			}
			lastmod := &no
			if c.FromLastmod {
				lastmod = &yes
			}
			dt, tags, diff := fmtTime(c.Datetime), strings.Join(c.Tags, "\n"), storedDiff(c.Diff)
			for i, v := range []*string{&c.URL, &c.Kind, &dt, r, &c.Source, &c.Title, &c.Summary,
				&c.Author, &c.Language, &tags, lastmod, &c.TextChange, &diff} {
				cols[i] = append(cols[i], v)
			}
		}
		args := make([]any, 0, len(changeColumns))
		args = append(args, run.CollectionID)
		for _, col := range cols {
			args = append(args, col)
		}
		f, h, err := countInserted(ctx, tx, q, args)
		if err != nil {
			return 0, 0, fmt.Errorf("insert changes %s…: %w", batch[0].URL, err)
		}
		fresh, history = fresh+f, history+h
	}
	return fresh, history, nil
}

// changeInsert is the INSERT of insertChangesInBatches, built once per
// handle from the types the catalog gives the columns of changes, and
// whether from_lastmod is a boolean (else 0 or 1).
func (d *DB) changeInsert(ctx context.Context, tx *sql.Tx) (string, bool, error) {
	d.pgInsert.mu.Lock()
	defer d.pgInsert.mu.Unlock()
	if d.pgInsert.q != "" {
		return d.pgInsert.q, d.pgInsert.isBool, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = 'changes'::regclass AND attnum > 0 AND NOT attisdropped`)
	if err != nil {
		return "", false, fmt.Errorf("read the types of the columns of changes: %w", err)
	}
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			rows.Close()
			return "", false, err
		}
		types[name] = typ
	}
	if err := rows.Close(); err != nil {
		return "", false, err
	}
	var casts, unnest []string
	for i, c := range changeColumns {
		typ, ok := types[c]
		if !ok {
			return "", false, fmt.Errorf("the table changes has no column %s", c)
		}
		if i == 0 {
			casts = append(casts, "CAST(? AS "+typ+")")
			continue
		}
		casts = append(casts, "CAST(u."+c+" AS "+typ+")")
		unnest = append(unnest, "?::text[]")
	}
	d.pgInsert.q = `INSERT INTO changes (` + strings.Join(changeColumns, ", ") + `)
SELECT ` + strings.Join(casts, ", ") + `
FROM unnest(` + strings.Join(unnest, ", ") + `) AS u(` + strings.Join(changeColumns[1:], ", ") + `)
ON CONFLICT DO NOTHING RETURNING run_id IS NULL`
	d.pgInsert.isBool = types["from_lastmod"] == "boolean"
	return d.pgInsert.q, d.pgInsert.isBool, nil
}

// countInserted runs an INSERT … RETURNING run_id IS NULL and counts the
// rows for the feed and the history.
func countInserted(ctx context.Context, tx *sql.Tx, q string, args []any) (fresh, history int, err error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var isHistory bool
		if err := rows.Scan(&isHistory); err != nil {
			return 0, 0, err
		}
		if isHistory {
			history++
		} else {
			fresh++
		}
	}
	return fresh, history, rows.Err()
}
