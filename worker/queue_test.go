package worker

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// gate records the tasks a queue starts and holds each until released.
type gate struct {
	started chan string
	release chan struct{}
}

func newGate() *gate {
	return &gate{started: make(chan string, 100), release: make(chan struct{})}
}

func (g *gate) task(user int64, key, host string) Task {
	return Task{Key: key, User: user, Host: host, Run: func(ctx context.Context) {
		g.started <- key
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	}}
}

// next returns the next task started, failing the test after 10 s.
func (g *gate) next(t *testing.T) string {
	t.Helper()
	select {
	case k := <-g.started:
		return k
	case <-time.After(10 * time.Second):
		t.Fatal("no task started in 10 s")
		return ""
	}
}

// TestQueueTakesTurnsBetweenUsers: a user who queued many waits behind
// each other user's next one.
func TestQueueTakesTurnsBetweenUsers(t *testing.T) {
	q := NewQueue(nil, 1)
	q.Start(t.Context())
	g := newGate()
	for i := range 5 {
		q.Push(g.task(1, fmt.Sprint("ann", i), fmt.Sprintf("ann%d.example", i)))
	}
	if k := g.next(t); k != "ann0" {
		t.Fatalf("started %s first", k)
	}
	q.Push(g.task(2, "bob0", "bob.example"))
	q.Push(g.task(2, "bob1", "bob1.example"))
	var order []string
	for range 6 {
		g.release <- struct{}{}
		order = append(order, g.next(t))
	}
	close(g.release)
	q.Wait()
	if got, want := fmt.Sprint(order), "[ann1 bob0 ann2 bob1 ann3 ann4]"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
}

// TestQueueKeepsOneHostAtATime: a task whose host is busy waits, also for
// work of another lane of the pool, and the tasks after it go ahead.
func TestQueueKeepsOneHostAtATime(t *testing.T) {
	pool := NewPool()
	other := pool.lane(1)
	hold := make(chan struct{})
	if other.tryGo(context.Background(), "a.example", func(context.Context) { <-hold }) != started {
		t.Fatal("the other lane did not start")
	}
	q := NewQueue(pool, 2)
	q.Start(t.Context())
	g := newGate()
	q.Push(g.task(1, "a1", "a.example"))
	q.Push(g.task(1, "b1", "b.example"))
	q.Push(g.task(2, "b2", "b.example"))
	if k := g.next(t); k != "b1" {
		t.Fatalf("started %s, want b1 while a.example is busy", k)
	}
	select {
	case k := <-g.started:
		t.Fatalf("started %s while its host was busy", k)
	case <-time.After(50 * time.Millisecond):
	}
	close(hold) // a.example is free: a1 starts beside b1
	if k := g.next(t); k != "a1" {
		t.Fatalf("started %s, want a1 once its host was free", k)
	}
	close(g.release)
	if k := g.next(t); k != "b2" {
		t.Fatalf("started %s, want b2 once b1 was done", k)
	}
	q.Wait()
	other.wait()
}

// TestQueueDropsTasksQueuedTwiceAndStopsWithItsContext: what waits when
// the context ends stays waiting, as it stays pending in the database.
func TestQueueDropsTasksQueuedTwiceAndStopsWithItsContext(t *testing.T) {
	q := NewQueue(nil, 1)
	ctx, cancel := context.WithCancel(t.Context())
	q.Start(ctx)
	g := newGate()
	if !q.Push(g.task(1, "x", "x.example")) || q.Push(g.task(1, "x", "x.example")) {
		t.Error("a task of a key waiting or running was queued again")
	}
	g.next(t)
	q.Push(g.task(2, "y", "y.example")) // waits: the one worker holds x
	cancel()
	q.Wait()
	select {
	case k := <-g.started:
		t.Errorf("started %s after the context ended", k)
	default:
	}
	if q.Push(g.task(1, "z", "z.example")); len(g.started) != 0 {
		t.Error("a task started after the context ended")
	}
	q.Wait()
}
