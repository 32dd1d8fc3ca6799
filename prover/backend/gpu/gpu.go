// Package gpu implements backend.Backend on one CUDA device through libsnarkpipe_cuda.so
// (package cuda). Bases are uploaded once and stay resident in device memory; scalars and
// NTT vectors are copied per call into pooled device buffers, and a resident shape keeps
// its proof vectors from one proof to the next (pool.go). New returns an error
// wrapping cuda.ErrNoCUDA when the library or a GPU is missing, so callers fall back to
// the CPU backend.
package gpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// ErrNoCUDA is cuda.ErrNoCUDA, re-exported so that callers test for a missing library or
// GPU without importing package cuda (only this package may, per DESIGN.md).
var ErrNoCUDA = cuda.ErrNoCUDA

// LibName is the file name of the CUDA library the backend loads.
const LibName = cuda.LibName

// Config selects the device and the library.
type Config struct {
	// Device is the CUDA ordinal.
	Device int
	// LibPath is the path of libsnarkpipe_cuda.so; empty means cuda.Candidates().
	LibPath string
	// WindowBits forces the MSM window width (0: chosen per size by the library).
	WindowBits int
	// ProofStreams is how many resident proofs run on the device at once, each on its
	// own stream with its own proof buffers (streams.go); 0 means 1.
	ProofStreams int
	// SerialMSMs runs every stage of a resident proof on its one stream. By default each
	// proof stream has a side stream that runs the proof's L MSM beside its quotient and
	// its A, B1 and B2 MSMs beside its H MSM (proveSteps), filling the idle gaps of the
	// large stages: 32 GiB PoRep 1.8 % faster for 4 GiB more device memory
	// (docs/BENCHMARKS.md).
	SerialMSMs bool
	// Arith is the Fr product of the NTTs and the quotient ("" or ArithAuto: chosen from
	// the device, chooseArith).
	Arith Arith
	// MemoryLimit caps the device memory the library allocates on this device, in bytes
	// (0: no cap of this backend's own; the cap is per process and device, and a later
	// backend with a limit replaces it): past it an allocation fails with an out-of-memory
	// error, as on a card of that size. It covers every allocation of the process on the
	// device (keys, shapes, proof buffers, kernel scratch), not the CUDA context itself.
	MemoryLimit uint64
	// StreamPlan is where a streamed proof (ProveResidentStreamed) cuts aux for its B2
	// MSM: the ends of its prefixes before the last, as increasing fractions of aux in
	// (0, 1). nil: DefaultStreamPlan.
	StreamPlan []float64
	// KeyChunk is the points per chunk of an MSM over bases streamed from host memory
	// (0: sized by the library from the device's spare memory; tests set small chunks to
	// cross chunk boundaries).
	KeyChunk int
	// SideChunk is the terms per chunk of a recorded side streamed from host memory
	// (0: defaultSideChunkTerms; tests set small chunks).
	SideChunk int
}

// DefaultConfig uses device 0 and the default library search.
func DefaultConfig() Config { return Config{} }

// Validate checks the configuration.
func (c Config) Validate() error {
	if c.Device < 0 {
		return fmt.Errorf("gpu backend: negative device ordinal %d", c.Device)
	}
	if c.WindowBits != 0 && (c.WindowBits < 4 || c.WindowBits > 24) {
		return fmt.Errorf("gpu backend: WindowBits %d outside [4, 24]", c.WindowBits)
	}
	for i, f := range c.StreamPlan {
		if !(f > 0 && f < 1) || (i > 0 && f <= c.StreamPlan[i-1]) {
			return fmt.Errorf("gpu backend: StreamPlan %v: want increasing fractions in (0, 1)", c.StreamPlan)
		}
	}
	if _, err := ParseArith(string(c.Arith)); err != nil {
		return fmt.Errorf("gpu backend: %w", err)
	}
	if c.SideChunk < 0 {
		return fmt.Errorf("gpu backend: negative SideChunk %d", c.SideChunk)
	}
	if c.KeyChunk < 0 {
		return fmt.Errorf("gpu backend: negative KeyChunk %d", c.KeyChunk)
	}
	if c.ProofStreams < 0 || c.ProofStreams > MaxProofStreams {
		return fmt.Errorf("gpu backend: ProofStreams %d outside [0, %d]", c.ProofStreams, MaxProofStreams)
	}
	return nil
}

// Backend is the CUDA implementation of backend.Backend. Calls are serialised on the
// main device stream, except resident proofs, which may also run on extra proof streams
// (streams.go).
type Backend struct {
	lib      *cuda.Lib
	info     cuda.DeviceInfo
	props    cuda.DeviceProps
	probed   bool
	arith    ArithChoice
	memLimit uint64
	device   int
	window   uint32
	// streamChunk: Config.KeyChunk, the points per chunk of a streamed key's MSMs
	streamChunk uint64
	// sideChunk: Config.SideChunk, the terms per chunk of a streamed shape's sides
	sideChunk uint64
	plan      []float64 // Config.StreamPlan or DefaultStreamPlan
	// streamMinAux: shapes with fewer aux variables prove whole when streamed
	// (minStreamAux; tests lower it)
	streamMinAux int

	// mu is the device lock: it owns the main context's stream and timing events. A
	// resident proof on the main stream holds it from its upload to its last MSM.
	mu     sync.Mutex
	ctx    cuda.Ctx
	closed bool // written under proofs (exclusive), mu and life

	// Resident proofs (streams.go): the free proof streams, the extra contexts behind
	// them, and the lock each proof holds shared against frees of what it reads.
	streams chan *proofStream
	extra   []cuda.Ctx
	sides   map[cuda.Ctx]cuda.Ctx // proof stream context → its side context (unless SerialMSMs)
	proofs  sync.RWMutex

	// poolMu guards the loaded shapes and their proof pools (pool.go).
	poolMu sync.Mutex
	shapes map[*residentShape]struct{} // loaded and not closed: the owners of proof pools
	// oneStream: the sizes of the shapes that ran out of device memory with the side
	// stream (residentShape.oneStream); a shape of those sizes loaded again, after a
	// swap of keys for instance, starts on one stream.
	oneStream map[shapeSizes]bool
	trims     atomic.Uint64 // pool trims after an out-of-memory failure
	pooled    atomic.Uint64 // device bytes held by proof pools
	// hostKeyBytes: page-locked host memory held by streamed key vectors (hostbases.go).
	hostKeyBytes atomic.Uint64

	domainsMu sync.Mutex
	domains   map[int]*quotientConsts

	// life is held shared by calls that only need the context to exist, not its stream
	// (host page-locking, pin.go), and exclusively by Close while it destroys the
	// contexts; so those calls never wait for a proof.
	life sync.RWMutex

	hooks testHooks
}

// testHooks let tests observe and fail device allocations and hold a proof in progress.
// They are set before the backend is shared; nil in production.
type testHooks struct {
	alloc     func(bytes uint64) error // runs before every allocation; an error fails it
	free      func(p cuda.DevPtr)      // runs after every free
	proofHeld func()                   // runs inside a resident proof, on its stream
	// stage runs before each stage of a resident proof ("upload", "eval", "quotient", "H",
	// "L", "A", "B1", "B2"), side telling whether it runs on the side stream; an error
	// fails the stage.
	stage func(name string, side bool) error
}

// stageHook runs the stage test hook, if set.
func (b *Backend) stageHook(name string, side bool) error {
	if b.hooks.stage != nil {
		return b.hooks.stage(name, side)
	}
	return nil
}

var _ backend.Backend = (*Backend)(nil)

// New opens device cfg.Device.
func New(cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lib, err := cuda.Load(cfg.LibPath)
	if err != nil {
		return nil, err
	}
	n, err := lib.DeviceCount()
	if err != nil {
		return nil, err
	}
	if cfg.Device >= n {
		return nil, fmt.Errorf("%w: device %d requested, %d present", cuda.ErrNoCUDA, cfg.Device, n)
	}
	info, err := lib.Device(cfg.Device)
	if err != nil {
		return nil, err
	}
	props, probed, err := probe(lib, cfg.Device)
	if err != nil {
		return nil, err
	}
	if err := setMemoryLimit(lib, cfg.Device, cfg.MemoryLimit); err != nil {
		return nil, err
	}
	want, _ := ParseArith(string(cfg.Arith)) // checked by Validate
	b := &Backend{lib: lib, info: info, props: props, probed: probed, arith: chooseArith(props, probed, want),
		memLimit: cfg.MemoryLimit, device: cfg.Device, window: uint32(cfg.WindowBits), plan: cfg.streamPlan(), streamChunk: uint64(cfg.KeyChunk), sideChunk: uint64(cfg.SideChunk),
		streamMinAux: minStreamAux, domains: make(map[int]*quotientConsts), shapes: make(map[*residentShape]struct{}),
		oneStream: make(map[shapeSizes]bool)}
	if b.ctx, err = b.newCtx(); err != nil {
		return nil, err
	}
	if err := b.newProofStreams(max(cfg.ProofStreams, 1), !cfg.SerialMSMs); err != nil {
		_ = lib.FreeCtx(b.ctx)
		return nil, err
	}
	return b, nil
}

// newCtx creates a context on the backend's device with the backend's arithmetic.
func (b *Backend) newCtx() (cuda.Ctx, error) {
	ctx, err := b.lib.NewCtx(b.device)
	if err != nil {
		return 0, err
	}
	if err := b.lib.SetArith(ctx, b.arith.Arith); err != nil {
		_ = b.lib.FreeCtx(ctx)
		return 0, fmt.Errorf("gpu backend: arithmetic %s: %w", b.arith.Arith, err)
	}
	return ctx, nil
}

// setMemoryLimit sets the device's ledger limit. The ledger is the process's, so a
// backend opened without a limit (0) leaves the device's as it is: it never lifts a cap
// another backend on the same device set. A library built before the ledger existed
// cannot cap: asking it for a limit fails.
func setMemoryLimit(lib *cuda.Lib, device int, limit uint64) error {
	if limit == 0 {
		return nil
	}
	if err := lib.SetMemoryLimit(device, limit); err != nil {
		return fmt.Errorf("gpu backend: device memory limit %d bytes: %w", limit, err)
	}
	return nil
}

// Name is "gpu<ordinal>".
func (b *Backend) Name() string { return fmt.Sprintf("gpu%d", b.device) }

// Device describes the GPU.
func (b *Backend) Device() cuda.DeviceInfo { return b.info }

// Close waits for the resident proofs in flight, frees the proof pools and releases the
// contexts; bases and shapes still open become unusable.
func (b *Backend) Close() error {
	b.proofs.Lock()
	defer b.proofs.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	_, trimErr := b.trimPools(b.ctx, nil)
	b.life.Lock()
	defer b.life.Unlock()
	b.closed = true
	return errors.Join(trimErr, b.freeProofStreams(), b.lib.FreeCtx(b.ctx))
}

// wrap turns library failures into backend errors; *cuda.StatusError stays reachable
// with errors.As (Temporary() tells out-of-memory and CUDA faults from bad input).
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("gpu backend: %s: %w", op, err)
}

// call runs f with the context under the lock.
func (b *Backend) call(f func(ctx cuda.Ctx) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return backend.ErrClosed
	}
	return f(b.ctx)
}

// alloc allocates device memory on the held context (through the test hook, if set).
func (b *Backend) alloc(ctx cuda.Ctx, bytes uint64) (cuda.DevPtr, error) {
	if b.hooks.alloc != nil {
		if err := b.hooks.alloc(bytes); err != nil {
			return 0, err
		}
	}
	return b.lib.Alloc(ctx, bytes)
}

// free releases device memory from alloc on the held context.
func (b *Backend) free(ctx cuda.Ctx, p cuda.DevPtr) error {
	err := b.lib.Free(ctx, p)
	if b.hooks.free != nil {
		b.hooks.free(p)
	}
	return err
}

// devBuf uploads bytes of host memory to a fresh device buffer; free must be called.
func (b *Backend) devBuf(ctx cuda.Ctx, src unsafe.Pointer, bytes uint64) (cuda.DevPtr, error) {
	p, err := b.alloc(ctx, bytes)
	if err != nil {
		return 0, err
	}
	if src != nil && bytes > 0 {
		if err := b.lib.Upload(ctx, p, src, bytes); err != nil {
			_ = b.free(ctx, p)
			return 0, err
		}
	}
	return p, nil
}

const (
	g1AffineBytes = 96
	g2AffineBytes = 192
	frBytes       = 32
)

// deviceBases is a base vector on the device (ptr) or, streamed, in page-locked host
// memory (host, hostbases.go).
type deviceBases struct {
	b     *Backend
	ptr   cuda.DevPtr
	host  *hostVector
	n     int
	g2    bool
	mu    sync.Mutex
	freed bool
}

func (d *deviceBases) Len() int { return d.n }

func (d *deviceBases) Close() error {
	// d.mu is released before waiting for the proofs in flight (which resolved their
	// bases before they started, so they never wait for d.mu while holding b.proofs).
	d.mu.Lock()
	if d.freed {
		d.mu.Unlock()
		return nil
	}
	d.freed = true
	d.mu.Unlock()
	if d.host != nil { // after the proofs in flight, which may be streaming from it
		return errors.Join(d.b.exclusive(func(cuda.Ctx) error { return nil }), d.b.releaseHost(d.host))
	}
	return d.b.exclusive(func(ctx cuda.Ctx) error { return wrap("free bases", d.b.free(ctx, d.ptr)) })
}

// errHostBases: an operation that needs its bases on the device got streamed ones.
var errHostBases = errors.New("gpu backend: these bases are streamed from host memory; only MSMs read them there")

// at returns the device address of base offset, checking that [offset, offset+n) exists
// and that the bases are on the device.
func (d *deviceBases) at(offset, n int) (cuda.DevPtr, error) {
	r, err := d.ref(offset, n)
	if err == nil && r.host != nil {
		err = errHostBases
	}
	return r.dev, err
}

type g1Bases struct{ deviceBases }
type g2Bases struct{ deviceBases }

var errForeignBases = errors.New("gpu backend: bases were not loaded by this backend")

// LoadG1 copies points to device memory.
func (b *Backend) LoadG1(points []bls.G1Affine) (backend.G1Bases, error) {
	var p unsafe.Pointer
	if len(points) > 0 {
		p = unsafe.Pointer(&points[0])
	}
	ptr, err := b.upload(p, uint64(len(points))*g1AffineBytes)
	if err != nil {
		return nil, wrap("load G1 bases", err)
	}
	return &g1Bases{deviceBases{b: b, ptr: ptr, n: len(points)}}, nil
}

// LoadG2 copies points to device memory.
func (b *Backend) LoadG2(points []bls.G2Affine) (backend.G2Bases, error) {
	var p unsafe.Pointer
	if len(points) > 0 {
		p = unsafe.Pointer(&points[0])
	}
	ptr, err := b.upload(p, uint64(len(points))*g2AffineBytes)
	if err != nil {
		return nil, wrap("load G2 bases", err)
	}
	return &g2Bases{deviceBases{b: b, ptr: ptr, n: len(points), g2: true}}, nil
}

// upload copies host memory to a fresh device buffer; when the device is out of memory
// it trims the idle proof pools and tries once more (a key loaded beside a resident
// shape whose pool outlived its proofs).
func (b *Backend) upload(p unsafe.Pointer, bytes uint64) (cuda.DevPtr, error) {
	var ptr cuda.DevPtr
	err := b.call(func(ctx cuda.Ctx) error {
		return b.retryOnOOM(ctx, nil, func() error {
			var err error
			ptr, err = b.devBuf(ctx, p, bytes)
			return err
		})
	})
	return ptr, err
}

var _ backend.BasesReader = (*Backend)(nil)

// ReadG1 copies resident bases [offset, offset+len(dst)) back into dst
// (backend.BasesReader): the device holds them in gnark-crypto's affine layout, so this
// is one download.
func (b *Backend) ReadG1(bases backend.G1Bases, offset int, dst []bls.G1Affine) error {
	d, err := b.g1(bases)
	if err != nil {
		return err
	}
	var p unsafe.Pointer
	if len(dst) > 0 {
		p = unsafe.Pointer(&dst[0])
	}
	return wrap("read G1 bases", b.readBases(d, offset, len(dst), p))
}

// ReadG2 is ReadG1 for G2 bases.
func (b *Backend) ReadG2(bases backend.G2Bases, offset int, dst []bls.G2Affine) error {
	d, err := b.g2(bases)
	if err != nil {
		return err
	}
	var p unsafe.Pointer
	if len(dst) > 0 {
		p = unsafe.Pointer(&dst[0])
	}
	return wrap("read G2 bases", b.readBases(d, offset, len(dst), p))
}

func (b *Backend) readBases(d *deviceBases, offset, n int, dst unsafe.Pointer) error {
	size := uint64(g1AffineBytes)
	if d.g2 {
		size = g2AffineBytes
	}
	// Resolved under the device lock, which a Close's free also takes: the bases are
	// either still there for the whole copy or reported closed.
	return b.call(func(ctx cuda.Ctx) error {
		src, err := d.ref(offset, n)
		if err != nil || n == 0 {
			return err
		}
		if src.host != nil {
			copy(unsafe.Slice((*byte)(dst), uint64(n)*size), unsafe.Slice((*byte)(src.host), uint64(n)*size))
			return nil
		}
		return b.lib.Download(ctx, dst, src.dev, uint64(n)*size)
	})
}

func (b *Backend) g1(bases backend.G1Bases) (*deviceBases, error) {
	g, ok := bases.(*g1Bases)
	if !ok || g.b != b {
		return nil, errForeignBases
	}
	return &g.deviceBases, nil
}

func (b *Backend) g2(bases backend.G2Bases) (*deviceBases, error) {
	g, ok := bases.(*g2Bases)
	if !ok || g.b != b {
		return nil, errForeignBases
	}
	return &g.deviceBases, nil
}
