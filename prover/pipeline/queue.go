package pipeline

import (
	"container/heap"
	"context"
	"errors"
	"sync"
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

// push adds p, waiting while a bounded queue is full.
func (q *pqueue) push(ctx context.Context, p *partition) error {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return errQueueClosed
		}
		if q.capacity == 0 || len(q.items) < q.capacity {
			heap.Push(&q.items, p)
			q.signal()
			q.mu.Unlock()
			return nil
		}
		ch := q.changed
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pop removes the first partition, waiting while the queue is empty.
func (q *pqueue) pop(ctx context.Context) (*partition, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
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
func (h partHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *partHeap) Push(x any)   { *h = append(*h, x.(*partition)) }
func (h *partHeap) Pop() any {
	old := *h
	n := len(old)
	p := old[n-1]
	old[n-1] = nil
	*h = old[:n-1]
	return p
}
