package pipeline

import (
	"context"
	"errors"
	"testing"
	"time"
)

func queued(prio Priority, seq uint64) *partition {
	return &partition{job: &Job{Priority: prio}, seq: seq}
}

// A producer blocked on a full hand-off keeps its place: when room frees up, a later
// arrival does not overtake it, and a higher priority still goes first.
func TestBoundedQueueKeepsPriorityOrderForBlockedProducers(t *testing.T) {
	q := newPQueue(1)
	ctx := context.Background()
	if err := q.push(ctx, queued(Normal, 1)); err != nil {
		t.Fatal(err)
	}
	pushed := make(chan uint64, 3)
	for _, p := range []*partition{queued(Normal, 2), queued(Normal, 3), queued(High, 9)} {
		go func() {
			if err := q.push(ctx, p); err != nil {
				t.Error(err)
			}
			pushed <- p.seq
		}()
		time.Sleep(10 * time.Millisecond) // arrive in this order
	}
	select {
	case s := <-pushed:
		t.Fatalf("producer %d returned from a full queue", s)
	default:
	}
	var order []uint64
	for i := 0; i < 4; i++ {
		p, err := q.pop(ctx)
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, p.seq)
	}
	want := []uint64{9, 1, 2, 3}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("popped %v, want %v", order, want)
		}
	}
}

func TestBlockedPushCancelledLeavesQueue(t *testing.T) {
	q := newPQueue(1)
	q.push(context.Background(), queued(Normal, 1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- q.push(ctx, queued(Normal, 2)) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled push: %v", err)
	}
	if q.len() != 1 {
		t.Fatalf("queue holds %d items after a cancelled push", q.len())
	}
	q.close()
	if p, err := q.pop(context.Background()); err != nil || p.seq != 1 {
		t.Fatalf("pop after close: %v %v", p, err)
	}
	if _, err := q.pop(context.Background()); !errors.Is(err, errQueueClosed) {
		t.Fatalf("pop of an empty closed queue: %v", err)
	}
}
