package pipeline

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
)

// loadEntry admits and loads an entry of the given size, then releases it (idle, resident).
func loadEntry(t *testing.T, a *arena, id string, bytes int64) {
	t.Helper()
	g, err := a.acquire(context.Background(), request{id: prover.CircuitID(id), entryBytes: bytes})
	if err != nil || !g.loader {
		t.Fatalf("acquire %s: %v (loader %v)", id, err, g != nil && g.loader)
	}
	a.loaded(g.entry, id, nil, time.Millisecond, nil)
	a.release(g, true)
}

// A request that needs room evicts idle circuits least recently used first, and only
// as many as it needs, even when it is pumped again before the freer has run.
func TestArenaEvictsLRUOnceAndOnlyAsNeeded(t *testing.T) {
	f := newFreer()
	defer f.close()
	pause := make(chan struct{})
	var unpause sync.Once
	defer unpause.Do(func() { close(pause) })
	f.submit(func() { <-pause }) // hold the freer so the evictions stay in flight
	a := newArena("test", 300, f, nil)
	loadEntry(t, a, "a", 100)
	time.Sleep(time.Millisecond)
	loadEntry(t, a, "b", 100)
	time.Sleep(time.Millisecond)
	loadEntry(t, a, "c", 100)
	touch, err := a.acquire(context.Background(), request{id: "a", entryBytes: 100})
	if err != nil || touch.loader {
		t.Fatalf("touching a: %v", err)
	}
	a.release(touch, true) // b is now the least recently used

	got := make(chan error, 1)
	go func() {
		g, err := a.acquire(context.Background(), request{id: "d", entryBytes: 80})
		if err == nil {
			a.loaded(g.entry, "d", nil, 0, nil)
			a.release(g, true)
		}
		got <- err
	}()
	waitFor(t, "an eviction", func() bool { return a.info().Evictions == 1 })
	// Pump again while the eviction is still queued: nothing more may go.
	a.mu.Lock()
	a.pump()
	a.mu.Unlock()
	if ev := a.info().Evictions; ev != 1 {
		t.Fatalf("%d evictions for a request that needed one", ev)
	}
	unpause.Do(func() { close(pause) })
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	var resident []string
	for _, r := range a.info().Resident {
		resident = append(resident, string(r.Circuit))
	}
	if len(resident) != 3 || resident[0] != "a" || resident[1] != "c" || resident[2] != "d" {
		t.Fatalf("resident after the eviction: %v (b, the least recently used, should have gone)", resident)
	}
	if mi := a.info(); mi.Used != 280 || mi.PeakUsed > 300 {
		t.Fatalf("used %d, peak %d", mi.Used, mi.PeakUsed)
	}
}

// Waiters are served strictly in priority order, and a waiter whose context ends leaves
// the queue without holding anything.
func TestArenaServesWaitersInPriorityOrder(t *testing.T) {
	f := newFreer()
	defer f.close()
	a := newArena("test", 100, f, nil)
	hold, err := a.acquire(context.Background(), request{id: "x", ws: 100})
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan Priority, 3)
	start := func(prio Priority, seq uint64, ctx context.Context) chan error {
		done := make(chan error, 1)
		go func() {
			g, err := a.acquire(ctx, request{id: "x", ws: 60, prio: prio, seq: seq})
			if err == nil {
				order <- prio
				time.Sleep(5 * time.Millisecond)
				a.release(g, true)
			}
			done <- err
		}()
		return done
	}
	low := start(Low, 1, context.Background())
	time.Sleep(5 * time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	gone := start(High, 2, ctx)
	time.Sleep(5 * time.Millisecond)
	crit := start(Critical, 3, context.Background())
	time.Sleep(5 * time.Millisecond)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	a.release(hold, true)
	for _, ch := range []chan error{low, crit} {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if first, second := <-order, <-order; first != Critical || second != Low {
		t.Fatalf("served %v then %v", first, second)
	}
	if mi := a.info(); mi.Used != 0 || mi.Grants != 0 || mi.Waiting != 0 {
		t.Fatalf("after all releases: %+v", mi)
	}
}

func TestArenaRefusesWhatCanNeverFit(t *testing.T) {
	f := newFreer()
	defer f.close()
	a := newArena("test", 100, f, []prover.CircuitID{"pinned"})
	loadEntry(t, a, "pinned", 40)
	if _, err := a.acquire(context.Background(), request{id: "other", entryBytes: 50, ws: 20}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("request beside a pinned circuit: %v", err)
	}
	if _, err := a.acquire(context.Background(), request{id: "pinned", ws: 61}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("working set beside its own circuit: %v", err)
	}
	if ok, err := a.evict("pinned"); !ok || err != nil {
		t.Fatalf("explicit evict of a pinned circuit: %v %v", ok, err)
	}
}
