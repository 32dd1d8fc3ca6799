package pipeline

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"
)

var errQueueClosed = errors.New("pipeline: queue closed")

// pqueue is a priority queue of partitions (highest priority first, then oldest job,
// then lowest partition index), optionally bounded: the scheduler's run queue and the
// bounded hand-off between synthesis and the device workers.
type pqueue struct {
	mu       sync.Mutex
	items    partHeap
	capacity int // 0: unbounded
	closed   bool
	changed  chan struct{} // closed and replaced on every change
}

func newPQueue(capacity int) *pqueue {
	return &pqueue{capacity: capacity, changed: make(chan struct{})}
}

func (q *pqueue) signal() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// push adds p. On a bounded queue that is over capacity it then waits until the queue
// is back within capacity or p has been taken: the item is queued at once, so a
// partition that waits here keeps its place in the priority order (a later partition
// cannot overtake it by arriving when room frees up). The memory of a queued partition
// is already reserved, so the bound is back-pressure on the producers, not accounting;
// a Critical partition therefore never waits for room: the worker that made it (a
// critical synthesis worker) is free at once for the next Winning PoSt instead of
// waiting for a device worker to finish a C2 partition. If ctx ends while p is still
// queued, p is removed and ctx's error returned.
func (q *pqueue) push(ctx context.Context, p *partition) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errQueueClosed
	}
	heap.Push(&q.items, p)
	q.signal()
	for q.capacity > 0 && len(q.items) > q.capacity && p.heapIndex >= 0 && !q.closed && p.job.Priority < Critical {
		ch := q.changed
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			q.mu.Lock()
			defer q.mu.Unlock()
			if p.heapIndex >= 0 {
				heap.Remove(&q.items, p.heapIndex)
				q.signal()
				return ctx.Err()
			}
			return nil // taken meanwhile: the consumer owns it
		}
		q.mu.Lock()
	}
	q.mu.Unlock()
	return nil
}

// pop removes the first partition, waiting while the queue is empty.
func (q *pqueue) pop(ctx context.Context) (*partition, error) { return q.popAtLeast(ctx, Low) }

// popAtLeast removes the first partition once it has priority min or higher, waiting
// while there is none (the first partition has the highest priority queued).
func (q *pqueue) popAtLeast(ctx context.Context, min Priority) (*partition, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 && q.items[0].job.Priority >= min {
			p := heap.Pop(&q.items).(*partition)
			q.signal()
			q.mu.Unlock()
			return p, nil
		}
		if q.closed {
			q.mu.Unlock()
			return nil, errQueueClosed
		}
		ch := q.changed
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// popBatch removes up to n more partitions to prove together with head: partitions of
// the same resident circuit that are next in priority order. It never takes anything
// out of order: it stops at the first queued partition of another circuit. When fewer
// than n are queued it waits up to wait for more (0: no wait).
func (q *pqueue) popBatch(head *partition, n int, wait time.Duration) []*partition {
	var out []*partition
	deadline := time.Now().Add(wait)
	for len(out) < n {
		q.mu.Lock()
		if len(q.items) > 0 {
			top := q.items[0]
			if top.state != head.state {
				q.mu.Unlock()
				return out
			}
			heap.Pop(&q.items)
			q.signal()
			q.mu.Unlock()
			out = append(out, top)
			continue
		}
		left := time.Until(deadline)
		if q.closed || left <= 0 {
			q.mu.Unlock()
			return out
		}
		ch := q.changed
		q.mu.Unlock()
		timer := time.NewTimer(left)
		select {
		case <-ch:
		case <-timer.C:
		}
		timer.Stop()
	}
	return out
}

func (q *pqueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// close wakes every waiter; pop still drains what is queued.
func (q *pqueue) close() []*partition {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.signal()
	return nil
}

// drain removes and returns everything queued.
func (q *pqueue) drain() []*partition {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := []*partition(q.items)
	for _, p := range out {
		p.heapIndex = -1
	}
	q.items = nil
	q.signal()
	return out
}

type partHeap []*partition

func (h partHeap) Len() int { return len(h) }
func (h partHeap) Less(i, j int) bool {
	if h[i].job.Priority != h[j].job.Priority {
		return h[i].job.Priority > h[j].job.Priority
	}
	return h[i].seq < h[j].seq
}
func (h partHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIndex, h[j].heapIndex = i, j
}

func (h *partHeap) Push(x any) {
	p := x.(*partition)
	p.heapIndex = len(*h)
	*h = append(*h, p)
}

func (h *partHeap) Pop() any {
	old := *h
	n := len(old)
	p := old[n-1]
	old[n-1] = nil
	p.heapIndex = -1
	*h = old[:n-1]
	return p
}
