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

// A Critical partition is queued past the bound without waiting (its memory is reserved;
// the bound only paces producers) and still comes out first; popAtLeast(Critical) takes
// nothing below Critical.
func TestCriticalPushIgnoresBoundAndPopAtLeast(t *testing.T) {
	q := newPQueue(1)
	ctx := context.Background()
	if err := q.push(ctx, queued(Normal, 1)); err != nil {
		t.Fatal(err)
	}
	pushed := make(chan error, 1)
	go func() { pushed <- q.push(ctx, queued(Critical, 2)) }()
	select {
	case err := <-pushed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a critical push waited for room in a full queue")
	}
	if p, err := q.popAtLeast(ctx, Critical); err != nil || p.seq != 2 {
		t.Fatalf("popAtLeast(Critical) = %v, %v; want the critical partition", p, err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if p, err := q.popAtLeast(short, Critical); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("popAtLeast(Critical) over a normal partition returned %v, %v", p, err)
	}
	if p, err := q.pop(ctx); err != nil || p.seq != 1 {
		t.Fatalf("pop = %v, %v; want the normal partition", p, err)
	}
}
