package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
)

// ErrTooLarge reports work that can never fit its memory budget, even with everything
// evictable evicted. It is returned at once instead of waiting forever.
var ErrTooLarge = errors.New("pipeline: job does not fit the memory budget")

// ErrInUse reports an Evict of something that partitions are using or loading.
var ErrInUse = errors.New("pipeline: circuit is in use")

// entry is one resident item of an arena: a circuit's recorded shape and parameters (host)
// or its proving key (device). Loading is done by the partition whose grant created the
// entry (grant.loader); the others wait on ready.
type entry struct {
	id       prover.CircuitID
	bytes    int64
	refs     int
	pinned   bool
	lastUsed time.Time
	ready    chan struct{} // closed when loading ends
	value    any           // set before ready closes
	err      error         // load failure, set before ready closes
	close    func()        // releases value; run by the freer on eviction
	loadTime time.Duration
	loaded   bool
	detached bool // no longer in the arena's map; closed when refs reach 0
}

// request asks an arena for one unit of work's memory: a reference on the entry of id
// (entryBytes are reserved if it must be loaded) and ws bytes of working set, in one
// all-or-nothing step so that no holder of a reference waits for memory.
type request struct {
	id         prover.CircuitID
	entryBytes int64
	ws         int64
	slot       slotShape // non-zero: ws is one pooled slot of this shape
	prio       Priority
	seq        uint64 // FIFO among equal priorities
}

// grant is what acquire hands out; release returns it.
type grant struct {
	arena    *arena
	entry    *entry
	ws       int64
	slot     *slot // a reused pool slot, or nil (the caller allocates one: allocSlot)
	loader   bool
	released bool
}

type waiter struct {
	req  request
	done chan struct{}
	g    *grant
	err  error
}

// arena is one memory budget (the host, or one device) with the entries resident in it,
// the idle pooled slots, and the queue of requests waiting for room. One mutex covers all
// of it, so admission, eviction and pooling decisions are made together (policy in doc.go).
type arena struct {
	name     string
	capacity int64
	// advice ends a refusal (ErrTooLarge) with what the operator can do about it.
	advice string
	freer  *freer
	pinned map[prover.CircuitID]bool
	// onDetach is called (arena lock held) when an entry leaves the arena, before its
	// close is queued: the host arena drops the circuit's device keys there.
	onDetach func(id prover.CircuitID)
	stats    *arenaStats

	mu      sync.Mutex
	used    int64 // entries + granted working sets + idle slots + bytes queued for freeing
	freeing int64 // bytes queued for freeing, still in used
	entries map[prover.CircuitID]*entry
	idle    map[slotShape][]*slot
	waiters []*waiter
	grants  int // outstanding grants
}

// arenaStats is observed by tests and metrics.
type arenaStats struct {
	mu               sync.Mutex
	peakUsed         int64
	live, peakLive   int64 // bytes of slots and entries actually allocated
	slotsLive        int
	loads, evictions int
	slotAllocs       int
}

// gibs formats bytes in GiB for messages.
func gibs(b int64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }

func newArena(name string, capacity int64, f *freer, pinned []prover.CircuitID) *arena {
	a := &arena{
		name: name, capacity: capacity, freer: f,
		pinned:  make(map[prover.CircuitID]bool),
		entries: make(map[prover.CircuitID]*entry),
		idle:    make(map[slotShape][]*slot),
		stats:   &arenaStats{},
	}
	for _, id := range pinned {
		a.pinned[id] = true
	}
	return a
}

// acquire waits until req can be granted in priority order, or ctx ends. Requests that
// could never fit fail with ErrTooLarge at once.
func (a *arena) acquire(ctx context.Context, req request) (*grant, error) {
	a.mu.Lock()
	if err := a.checkFits(req); err != nil {
		a.mu.Unlock()
		return nil, err
	}
	w := &waiter{req: req, done: make(chan struct{})}
	i := sort.Search(len(a.waiters), func(i int) bool { return before(req, a.waiters[i].req) })
	a.waiters = append(a.waiters, nil)
	copy(a.waiters[i+1:], a.waiters[i:])
	a.waiters[i] = w
	a.pump()
	a.mu.Unlock()

	select {
	case <-w.done:
		return w.g, w.err
	case <-ctx.Done():
	}
	a.mu.Lock()
	select {
	case <-w.done: // granted meanwhile: give it back
		a.mu.Unlock()
		if w.g != nil {
			if w.g.loader {
				a.loaded(w.g.entry, nil, nil, 0, ctx.Err())
			}
			a.release(w.g, true)
		}
		return nil, ctx.Err()
	default:
	}
	for i := range a.waiters {
		if a.waiters[i] == w {
			a.waiters = append(a.waiters[:i], a.waiters[i+1:]...)
			break
		}
	}
	a.pump()
	a.mu.Unlock()
	return nil, ctx.Err()
}

func before(x, y request) bool {
	if x.prio != y.prio {
		return x.prio > y.prio
	}
	return x.seq < y.seq
}

// checkFits refuses a request larger than the budget left by other pinned entries.
func (a *arena) checkFits(req request) error {
	// The circuit itself must be resident beside the working set, whether it is now or not.
	need := req.ws + req.entryBytes
	if e := a.entries[req.id]; e != nil {
		need = req.ws + e.bytes
	}
	avail := a.capacity
	for id, e := range a.entries {
		if e.pinned && id != req.id {
			avail -= e.bytes
		}
	}
	if need > avail {
		return fmt.Errorf("%w: %s needs %s (%d bytes) of %s memory, at most %s (%d bytes) can be made free (budget %s)%s",
			ErrTooLarge, req.id, gibs(need), need, a.name, gibs(avail), avail, gibs(a.capacity), a.advice)
	}
	return nil
}

// pump grants waiters from the head while they fit. The head is never bypassed: a large
// high-priority request is not starved by a stream of small ones.
func (a *arena) pump() {
	for len(a.waiters) > 0 {
		w := a.waiters[0]
		g, ok := a.tryGrant(w.req)
		if !ok {
			return
		}
		a.waiters = a.waiters[1:]
		w.g = g
		close(w.done)
	}
}

// tryGrant grants req if it fits now. If it does not, but would after evicting idle pool
// slots and idle unpinned entries (least recently used first), it queues exactly enough of
// them for freeing and reports false; the freer's completion pumps again.
func (a *arena) tryGrant(req request) (*grant, bool) {
	e := a.entries[req.id]
	need := req.ws
	if e == nil {
		need += req.entryBytes
	}
	var reuse *slot
	if req.slot != (slotShape{}) {
		if l := a.idle[req.slot]; len(l) > 0 {
			reuse = l[len(l)-1]
			need -= reuse.shape.bytes()
		}
	}
	if a.used+need > a.capacity {
		// Bytes already on their way out count as coming back: evict only for the rest,
		// or a request pumped again before the freer ran would evict twice.
		if excess := a.used - a.freeing + need - a.capacity; excess > 0 {
			a.reclaim(excess, req.id, reuse)
		}
		return nil, false
	}
	if reuse != nil {
		l := a.idle[req.slot]
		a.idle[req.slot] = l[:len(l)-1]
	}
	g := &grant{arena: a, ws: req.ws, slot: reuse}
	if e == nil {
		e = &entry{id: req.id, bytes: req.entryBytes, ready: make(chan struct{}), pinned: a.pinned[req.id]}
		a.entries[req.id] = e
		g.loader = true
		a.stats.addLive(req.entryBytes)
	}
	e.refs++
	g.entry = e
	a.grants++
	a.used += need
	a.stats.observeUsed(a.used)
	return g, true
}

// reclaim queues idle slots, then idle entries, for freeing until excess bytes are on
// their way out, but only if that is enough: nothing is evicted for a request that would
// still have to wait.
func (a *arena) reclaim(excess int64, keepID prover.CircuitID, keepSlot *slot) {
	var available int64
	for _, l := range a.idle {
		for _, s := range l {
			if s != keepSlot {
				available += s.shape.bytes()
			}
		}
	}
	var victims []*entry
	for id, e := range a.entries {
		if e.refs == 0 && !e.pinned && e.loaded && id != keepID {
			victims = append(victims, e)
			available += e.bytes
		}
	}
	if available < excess {
		return
	}
	for shape, l := range a.idle {
		kept := l[:0]
		for _, s := range l {
			if excess <= 0 || s == keepSlot {
				kept = append(kept, s)
				continue
			}
			excess -= s.shape.bytes()
			a.freeSlot(s)
		}
		a.idle[shape] = kept
	}
	sort.Slice(victims, func(i, j int) bool { return victims[i].lastUsed.Before(victims[j].lastUsed) })
	for _, e := range victims {
		if excess <= 0 {
			break
		}
		excess -= e.bytes
		a.detach(e)
	}
}

// freeSlot queues a slot's memory for release; its bytes stay counted until then.
func (a *arena) freeSlot(s *slot) {
	bytes := s.shape.bytes()
	a.freeing += bytes
	a.freer.submit(func() {
		s.free()
		a.stats.slotFreed(bytes)
		a.freed(bytes)
	})
}

// detach removes an entry from the arena, so that the next request for its circuit loads
// a new one, and queues its close once nobody uses it (now, for an idle entry; else at its
// last release). Its bytes stay counted until the close has run.
func (a *arena) detach(e *entry) {
	if a.entries[e.id] == e {
		delete(a.entries, e.id)
	}
	if e.detached {
		return
	}
	e.detached = true
	if a.onDetach != nil {
		a.onDetach(e.id)
	}
	a.stats.evicted()
	a.freeing += e.bytes
	if e.refs == 0 {
		a.queueClose(e)
	}
}

func (a *arena) queueClose(e *entry) {
	closeFn := e.close
	a.freer.submit(func() {
		if closeFn != nil {
			closeFn()
		}
		a.stats.addLive(-e.bytes)
		a.freed(e.bytes)
	})
}

// retire detaches e even while it is in use: its circuit's recording no longer matches
// the circuit code, so new work must not get it.
func (a *arena) retire(e *entry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e.loaded && !e.detached {
		a.detach(e)
		a.pump()
	}
}

func (a *arena) freed(bytes int64) {
	a.mu.Lock()
	a.used -= bytes
	a.freeing -= bytes
	a.pump()
	a.mu.Unlock()
}

// loaded ends the loading of a grant's entry: value on success, err on failure (the entry
// is then dropped and its bytes returned; the waiting holders see err).
func (a *arena) loaded(e *entry, value any, closeFn func(), took time.Duration, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil {
		e.err = err
		if a.entries[e.id] == e {
			delete(a.entries, e.id)
		}
		if e.detached { // its bytes were counted as on their way out
			a.freeing -= e.bytes
		}
		e.detached = true // nothing to close; release must not queue a close
		e.close = nil
		a.used -= e.bytes
		a.stats.addLive(-e.bytes)
	} else {
		e.value, e.close, e.loadTime, e.loaded = value, closeFn, took, true
		a.stats.loaded()
	}
	e.lastUsed = time.Now()
	close(e.ready)
	a.pump()
}

// allocSlot gives g its working-set slot: the reused one, or a new allocation (made
// outside the lock; the bytes were reserved by the grant).
func (a *arena) allocSlot(g *grant, shape slotShape) (*slot, error) {
	if g.slot != nil {
		return g.slot, nil
	}
	s, err := newSlot(shape)
	if err != nil {
		return nil, err
	}
	a.stats.slotAllocated(shape.bytes())
	g.slot = s
	return s, nil
}

// reserveIdle reserves the bytes of idle slots of shape so that n are idle, counting
// those already idle, as many as fit the budget now without evicting anything and only
// while no request waits (a waiting request allocates its own). The caller allocates each
// reserved slot and hands it to addIdle, or gives its bytes back with unreserve.
func (a *arena) reserveIdle(shape slotShape, n int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.waiters) > 0 {
		return 0
	}
	b, got := shape.bytes(), 0
	for got < n-len(a.idle[shape]) && a.used+b <= a.capacity {
		a.used += b
		got++
	}
	a.stats.observeUsed(a.used)
	return got
}

// addIdle puts a slot allocated for a reserveIdle reservation into the pool.
func (a *arena) addIdle(s *slot) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.idle[s.shape] = append(a.idle[s.shape], s)
	a.pump()
}

// unreserve gives back reserved bytes that were not allocated.
func (a *arena) unreserve(bytes int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used -= bytes
	a.pump()
}

// release returns a grant: the entry reference, and the working set (its slot back to the
// pool, or its bytes when it had no slot). keepSlot false frees the slot instead (a slot
// whose contents are suspect). Calling it twice is harmless.
func (a *arena) release(g *grant, keepSlot bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if g.released {
		return
	}
	g.released = true
	g.entry.refs--
	g.entry.lastUsed = time.Now()
	if g.entry.detached && g.entry.refs == 0 && g.entry.err == nil {
		a.queueClose(g.entry)
	}
	switch {
	case g.slot != nil && keepSlot:
		a.idle[g.slot.shape] = append(a.idle[g.slot.shape], g.slot)
	case g.slot != nil:
		a.freeSlot(g.slot)
	default: // no slot, or one reserved but never allocated
		a.used -= g.ws
	}
	a.grants--
	a.pump()
}

// evict removes an idle entry now (its close runs on the freer).
func (a *arena) evict(id prover.CircuitID) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.entries[id]
	if e == nil {
		return false, nil
	}
	if e.refs > 0 || !e.loaded {
		return false, fmt.Errorf("%w: %s has %d users", ErrInUse, id, e.refs)
	}
	a.detach(e)
	a.pump()
	return true, nil
}

// detachCircuit is onDetach's device side: the host is dropping a circuit, so its proving
// key goes too (closed once the last partition using it is done; the parameters it
// references are closed after it, by the same in-order freer).
func (a *arena) detachCircuit(id prover.CircuitID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if e := a.entries[id]; e != nil { // a key still loading is closed after its load
		a.detach(e)
		a.pump()
	}
}

// closeAll evicts everything and frees the pool (at shutdown, after all work ended).
func (a *arena) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.entries {
		if e.loaded {
			a.detach(e)
		}
	}
	for shape, l := range a.idle {
		for _, s := range l {
			a.freeSlot(s)
		}
		delete(a.idle, shape)
	}
}

// ResidentInfo describes one resident entry.
type ResidentInfo struct {
	Circuit  prover.CircuitID
	Bytes    int64
	Refs     int
	Pinned   bool
	LoadTime time.Duration
	LastUsed time.Time
}

// MemoryInfo is one arena's state.
type MemoryInfo struct {
	Name               string
	Capacity, Used     int64
	IdleSlots          int
	IdleSlotBytes      int64
	Waiting            int
	Grants             int
	Resident           []ResidentInfo
	PeakUsed, PeakLive int64
	LiveBytes          int64
	LiveSlots          int
	Loads, Evictions   int
	SlotAllocs         int
}

func (a *arena) info() MemoryInfo {
	a.mu.Lock()
	mi := MemoryInfo{Name: a.name, Capacity: a.capacity, Used: a.used, Waiting: len(a.waiters), Grants: a.grants}
	for _, l := range a.idle {
		for _, s := range l {
			mi.IdleSlots++
			mi.IdleSlotBytes += s.shape.bytes()
		}
	}
	for _, e := range a.entries {
		if e.loaded {
			mi.Resident = append(mi.Resident, ResidentInfo{e.id, e.bytes, e.refs, e.pinned, e.loadTime, e.lastUsed})
		}
	}
	a.mu.Unlock()
	sort.Slice(mi.Resident, func(i, j int) bool { return mi.Resident[i].Circuit < mi.Resident[j].Circuit })
	s := a.stats
	s.mu.Lock()
	mi.PeakUsed, mi.PeakLive, mi.LiveBytes, mi.LiveSlots = s.peakUsed, s.peakLive, s.live, s.slotsLive
	mi.Loads, mi.Evictions, mi.SlotAllocs = s.loads, s.evictions, s.slotAllocs
	s.mu.Unlock()
	return mi
}

func (s *arenaStats) observeUsed(used int64) {
	s.mu.Lock()
	s.peakUsed = max(s.peakUsed, used)
	s.mu.Unlock()
}

func (s *arenaStats) addLive(n int64) {
	s.mu.Lock()
	s.live += n
	s.peakLive = max(s.peakLive, s.live)
	s.mu.Unlock()
}

func (s *arenaStats) slotAllocated(n int64) {
	s.mu.Lock()
	s.slotsLive++
	s.slotAllocs++
	s.live += n
	s.peakLive = max(s.peakLive, s.live)
	s.mu.Unlock()
}

func (s *arenaStats) slotFreed(n int64) {
	s.mu.Lock()
	s.slotsLive--
	s.live -= n
	s.mu.Unlock()
}

func (s *arenaStats) loaded() {
	s.mu.Lock()
	s.loads++
	s.mu.Unlock()
}

func (s *arenaStats) evicted() {
	s.mu.Lock()
	s.evictions++
	s.mu.Unlock()
}

// fits is checkFits under the lock.
func (a *arena) fits(req request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.checkFits(req)
}
