package worker

import (
	"context"
	"slices"
	"sync"
)

// Queue holds the work people asked for in the background (the
// discovery of each site they added, a harvest they asked for now) until
// a worker is free for it: one line per user, served in turn, so that a
// user who queued hundreds waits behind each other user's next one, not
// the other way round. Work on a host that is busy, in this queue or
// elsewhere in its Pool, waits for it while the work after it goes
// ahead. A queue holds only what its owner has stored as pending, so a
// restart rebuilds it from the database.
type Queue struct {
	lane *lane

	mu      sync.Mutex
	ctx     context.Context
	lines   map[int64][]Task // by user, oldest first
	turns   []int64          // users with a line, in the order they are served
	queued  map[string]bool  // keys of the tasks waiting or running
	looping bool             // a loop is starting what waits
	loops   sync.WaitGroup
	kick    chan struct{} // signalled, without blocking, when a task is pushed
}

// Task is one piece of work in a Queue.
type Task struct {
	// Key names the work: a task pushed while one of its key waits or
	// runs is dropped.
	Key string
	// User is whose line the task waits in.
	User int64
	// Host is the site's HostOf: two tasks of one host never run at once.
	Host string
	// Run does the work; once ctx ends it should stop, leaving what it
	// did not do pending.
	Run func(ctx context.Context)
}

// NewQueue returns a queue running its tasks on workers of its own
// (DefaultWorkers when not positive) in pool, or in a pool of its own
// when pool is nil.
func NewQueue(pool *Pool, workers int) *Queue {
	if pool == nil {
		pool = NewPool()
	}
	return &Queue{
		lane: pool.lane(workers), ctx: context.Background(),
		lines: map[int64][]Task{}, queued: map[string]bool{}, kick: make(chan struct{}, 1),
	}
}

// Start sets the context the tasks started from now on run under; once
// it ends, no task starts and what waits stays pending.
func (q *Queue) Start(ctx context.Context) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ctx = ctx
}

// Push adds t to its user's line, unless a task of its key waits or
// runs; it reports whether t was added.
func (q *Queue) Push(t Task) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued[t.Key] {
		return false
	}
	q.queued[t.Key] = true
	if len(q.lines[t.User]) == 0 {
		q.turns = append(q.turns, t.User)
	}
	q.lines[t.User] = append(q.lines[t.User], t)
	if q.looping {
		select {
		case q.kick <- struct{}{}:
		default:
		}
		return true
	}
	q.looping = true
	q.loops.Go(q.loop)
	return true
}

// Wait returns when no task waits or runs, or, once the context has
// ended, when the tasks under way have.
func (q *Queue) Wait() {
	q.loops.Wait()
	q.lane.wait()
}

// loop starts what it can, then waits for a worker or a host to free up,
// until nothing waits or the context ends.
func (q *Queue) loop() {
	for {
		ctx, waiting := q.dispatch()
		if !waiting {
			return
		}
		select {
		case <-q.lane.freed:
		case <-q.kick:
		case <-ctx.Done():
		}
	}
}

// dispatch starts the tasks that free workers and hosts allow, and
// reports whether any still waits; when none does, or the context has
// ended, the loop is over.
func (q *Queue) dispatch() (context.Context, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	ctx := q.ctx
	for ctx.Err() == nil && q.startNext(ctx) {
	}
	if ctx.Err() != nil || len(q.turns) == 0 {
		q.looping = false
		return ctx, false
	}
	return ctx, true
}

// startNext starts the oldest task of the first user in turn who has one
// whose host is free, and sends that user to the back of the turns if
// more of theirs wait. It reports whether it started one.
func (q *Queue) startNext(ctx context.Context) bool {
	for i, user := range q.turns {
		line := q.lines[user]
		for j, t := range line {
			switch q.lane.tryGo(ctx, t.Host, func(ctx context.Context) { q.run(ctx, t) }) {
			case poolFull:
				return false
			case hostBusy:
				continue
			}
			line = slices.Delete(line, j, j+1)
			q.turns = slices.Delete(q.turns, i, i+1)
			if len(line) == 0 {
				delete(q.lines, user)
			} else {
				q.lines[user] = line
				q.turns = append(q.turns, user)
			}
			return true
		}
	}
	return false
}

// run runs a task and forgets it.
func (q *Queue) run(ctx context.Context, t Task) {
	defer func() {
		q.mu.Lock()
		delete(q.queued, t.Key)
		q.mu.Unlock()
	}()
	t.Run(ctx)
}
