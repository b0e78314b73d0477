// Package pagetext holds what tidings knows about the text of one page:
// extracting a snapshot from a fetched body (title, readable text as
// lines, hashes that tell a text change from a markup change), the line
// diff between two snapshots in the form stored with a change and rendered
// for feeds, summaries and unified diffs, and the compression of stored
// text. Bytes in, values out: it fetches nothing and stores nothing.
package pagetext
