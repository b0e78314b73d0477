package web

import (
	"sync"

	"tidings/db"
)

// discoveryQueue holds the pending discoveries waiting for a worker, one
// line per user, served in turn: a user who queued hundreds waits behind
// each other user's next one, not the other way round. It holds only what
// is stored as pending, so a restart rebuilds it from the database.
type discoveryQueue struct {
	mu     sync.Mutex
	lines  map[int64][]db.Discovery // by user, oldest first
	turns  []int64                  // users with a line, in the order they are served
	queued map[int64]bool           // discovery ids waiting or running
}

func newDiscoveryQueue() *discoveryQueue {
	return &discoveryQueue{lines: map[int64][]db.Discovery{}, queued: map[int64]bool{}}
}

// push adds d to its user's line, unless it is already waiting or
// running; it reports whether it was added.
func (q *discoveryQueue) push(d db.Discovery) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued[d.ID] {
		return false
	}
	q.queued[d.ID] = true
	if len(q.lines[d.UserID]) == 0 {
		q.turns = append(q.turns, d.UserID)
	}
	q.lines[d.UserID] = append(q.lines[d.UserID], d)
	return true
}

// pop takes the oldest discovery of the user whose turn it is; that user,
// if more of theirs wait, goes to the back.
func (q *discoveryQueue) pop() (db.Discovery, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.turns) == 0 {
		return db.Discovery{}, false
	}
	user := q.turns[0]
	q.turns = q.turns[1:]
	line := q.lines[user]
	d := line[0]
	if len(line) == 1 {
		delete(q.lines, user)
	} else {
		q.lines[user] = line[1:]
		q.turns = append(q.turns, user)
	}
	return d, true
}

// done forgets a discovery that ran.
func (q *discoveryQueue) done(id int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.queued, id)
}
