package web

import (
	"context"
	"errors"
	"sync"
	"time"
)

// checkQueue lets a few checks run at once, at most one per client, and
// serves the clients waiting in turn, one check each, rather than their
// requests in order: a client that sends ten checks waits behind each
// other client's one. A check waits a bounded time, and only so many
// wait at all; past either, the page says tidings is busy.
type checkQueue struct {
	slots    int           // checks running at once, whoever asks
	patience time.Duration // the longest a check waits for its turn
	maxWait  int           // checks waiting at once, whoever asks

	mu      sync.Mutex
	running map[string]bool           // clients with a check running
	nrun    int                       // checks running
	waiting map[string][]*checkWaiter // each client's waiting checks, oldest first
	turns   []string                  // clients with checks waiting, next first
	nwait   int
}

type checkWaiter struct {
	ready   chan struct{} // closed when the check may run
	granted bool          // under checkQueue.mu
}

// Why a check did not get its turn.
var (
	errQueueFull    = errors.New("web: too many checks waiting")
	errQueueTooLong = errors.New("web: waited too long for a check's turn")
	// errOwnCheckRunning: waited too long, behind the client's own check.
	errOwnCheckRunning = errors.New("web: the client's other check is still running")
)

func newCheckQueue(slots int, patience time.Duration, maxWait int) *checkQueue {
	return &checkQueue{
		slots: slots, patience: patience, maxWait: maxWait,
		running: map[string]bool{}, waiting: map[string][]*checkWaiter{},
	}
}

// acquire waits for client's turn to run a check. release must be called
// when the check ends.
func (q *checkQueue) acquire(ctx context.Context, client string) (release func(), err error) {
	w := &checkWaiter{ready: make(chan struct{})}
	q.mu.Lock()
	if q.nwait >= q.maxWait {
		q.mu.Unlock()
		return nil, errQueueFull
	}
	if len(q.waiting[client]) == 0 {
		q.turns = append(q.turns, client)
	}
	q.waiting[client] = append(q.waiting[client], w)
	q.nwait++
	q.dispatch()
	q.mu.Unlock()

	release = func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.nrun--
		delete(q.running, client)
		// Whoever waited while this check ran goes before its client's
		// next one.
		q.toBack(client)
		q.dispatch()
	}
	timer := time.NewTimer(q.patience)
	defer timer.Stop()
	select {
	case <-w.ready:
		return release, nil
	case <-timer.C:
		err = errQueueTooLong
	case <-ctx.Done():
		err = ctx.Err()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted { // the turn came as the wait ended: take it
		return release, nil
	}
	q.leave(client, w)
	if err == errQueueTooLong && q.running[client] {
		err = errOwnCheckRunning
	}
	return nil, err
}

// dispatch starts waiting checks while slots are free: the first client
// in turn with no check running goes, then to the back of the line if it
// has more waiting. Called with q.mu held.
func (q *checkQueue) dispatch() {
	for q.nrun < q.slots {
		i := 0
		for i < len(q.turns) && q.running[q.turns[i]] {
			i++
		}
		if i == len(q.turns) {
			return
		}
		client := q.turns[i]
		w := q.waiting[client][0]
		q.waiting[client] = q.waiting[client][1:]
		q.nwait--
		q.turns = append(q.turns[:i], q.turns[i+1:]...)
		if len(q.waiting[client]) > 0 {
			q.turns = append(q.turns, client)
		} else {
			delete(q.waiting, client)
		}
		q.running[client] = true
		q.nrun++
		w.granted = true
		close(w.ready)
	}
}

// toBack moves client, if in line, behind every other client in line.
// Called with q.mu held.
func (q *checkQueue) toBack(client string) {
	for i, c := range q.turns {
		if c == client {
			q.turns = append(append(q.turns[:i], q.turns[i+1:]...), client)
			return
		}
	}
}

// leave takes a check that gave up out of the line. Called with q.mu held.
func (q *checkQueue) leave(client string, w *checkWaiter) {
	list := q.waiting[client]
	for i, x := range list {
		if x == w {
			list = append(list[:i], list[i+1:]...)
			q.nwait--
			break
		}
	}
	if len(list) > 0 {
		q.waiting[client] = list
		return
	}
	delete(q.waiting, client)
	for i, c := range q.turns {
		if c == client {
			q.turns = append(q.turns[:i], q.turns[i+1:]...)
			break
		}
	}
}
