package gpu

import (
	"errors"
	"fmt"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// Streamed keys (the memory tiers, backend.KeyStreamer): a key vector may live in
// page-locked host memory instead of on the device. Its MSMs then copy it to the device
// chunk by chunk (cuda.Lib.MSMHost), the copy of the next chunk overlapping the work on
// this one, and give the same point as over resident bases. The vector keeps the
// g1Bases/g2Bases types, so a key may mix resident and streamed vectors.

var _ backend.KeyStreamer = (*Backend)(nil)

// hostVector is a base vector's page-locked host copy.
type hostVector struct {
	mem []byte // anonymous mapping (mapHost), registered with the library
}

func (h *hostVector) ptr() unsafe.Pointer {
	if len(h.mem) == 0 {
		return nil
	}
	return unsafe.Pointer(&h.mem[0])
}

// newHostVector maps bytes of host memory and page-locks them; fill writes the points.
func (b *Backend) newHostVector(bytes uint64, fill func(dst unsafe.Pointer) error) (*hostVector, error) {
	if !b.lib.HasHostMSM() {
		return nil, fmt.Errorf("gpu backend: streamed keys: %w", cuda.ErrMissingSymbol)
	}
	mem, err := mapHost(max(bytes, 1))
	if err != nil {
		return nil, err
	}
	h := &hostVector{mem: mem}
	if err := fill(h.ptr()); err != nil {
		return nil, errors.Join(err, unmapHost(mem))
	}
	if err := b.onContext(func(ctx cuda.Ctx) error { return b.lib.HostRegister(ctx, h.ptr(), uint64(len(mem))) }); err != nil {
		return nil, errors.Join(wrap("page-lock streamed bases", err), unmapHost(mem))
	}
	b.hostKeyBytes.Add(uint64(len(mem)))
	return h, nil
}

// release unregisters and unmaps the copy.
func (b *Backend) releaseHost(h *hostVector) error {
	err := b.onContext(func(ctx cuda.Ctx) error { return b.lib.HostUnregister(ctx, h.ptr()) })
	b.hostKeyBytes.Add(^uint64(len(h.mem) - 1))
	return errors.Join(wrap("unpin streamed bases", err), unmapHost(h.mem))
}

// LoadG1Host copies points into page-locked host memory (see backend.KeyStreamer).
func (b *Backend) LoadG1Host(points []bls.G1Affine) (backend.G1Bases, error) {
	h, err := b.hostCopy(unsafe.Pointer(unsafe.SliceData(points)), uint64(len(points))*g1AffineBytes)
	if err != nil {
		return nil, wrap("load G1 bases into host memory", err)
	}
	return &g1Bases{deviceBases{b: b, host: h, n: len(points)}}, nil
}

// LoadG2Host is LoadG1Host for G2 points.
func (b *Backend) LoadG2Host(points []bls.G2Affine) (backend.G2Bases, error) {
	h, err := b.hostCopy(unsafe.Pointer(unsafe.SliceData(points)), uint64(len(points))*g2AffineBytes)
	if err != nil {
		return nil, wrap("load G2 bases into host memory", err)
	}
	return &g2Bases{deviceBases{b: b, host: h, n: len(points), g2: true}}, nil
}

func (b *Backend) hostCopy(src unsafe.Pointer, bytes uint64) (*hostVector, error) {
	return b.newHostVector(bytes, func(dst unsafe.Pointer) error {
		if bytes > 0 {
			copy(unsafe.Slice((*byte)(dst), bytes), unsafe.Slice((*byte)(src), bytes))
		}
		return nil
	})
}

// StreamKey moves the vectors of k that parts names from the device to page-locked host
// memory, one at a time (the device copy is freed once its host copy is made), and
// returns the key with those vectors replaced; vectors already in host memory stay. On
// an error the vectors moved so far stay moved (k's closed vectors are replaced).
func (b *Backend) StreamKey(k backend.ResidentKey, parts backend.KeyParts) (backend.ResidentKey, error) {
	g1s := []struct {
		part backend.KeyParts
		v    *backend.G1Bases
	}{{backend.KeyH, &k.H}, {backend.KeyL, &k.L}, {backend.KeyA, &k.A}, {backend.KeyBG1, &k.BG1}}
	for _, g := range g1s {
		if parts&g.part == 0 {
			continue
		}
		d, err := b.g1(*g.v)
		if err != nil {
			return k, err
		}
		if d.host != nil {
			continue
		}
		h, err := b.moveToHost(d)
		if err != nil {
			return k, err
		}
		*g.v = &g1Bases{deviceBases{b: b, host: h, n: d.n}}
	}
	if parts&backend.KeyBG2 != 0 {
		d, err := b.g2(k.BG2)
		if err != nil {
			return k, err
		}
		if d.host != nil {
			return k, nil
		}
		h, err := b.moveToHost(d)
		if err != nil {
			return k, err
		}
		k.BG2 = &g2Bases{deviceBases{b: b, host: h, n: d.n, g2: true}}
	}
	return k, nil
}

// moveToHost returns a host copy of d's device bases and closes d.
func (b *Backend) moveToHost(d *deviceBases) (*hostVector, error) {
	size := uint64(d.n) * d.pointBytes()
	h, err := b.newHostVector(size, func(dst unsafe.Pointer) error { return b.readBases(d, 0, d.n, dst) })
	if err != nil {
		return nil, wrap("move bases to host memory", err)
	}
	if err := d.Close(); err != nil {
		return nil, errors.Join(err, b.releaseHost(h))
	}
	return h, nil
}

// HostKeyBytes is the page-locked host memory the backend's streamed vectors hold.
func (b *Backend) HostKeyBytes() uint64 { return b.hostKeyBytes.Load() }

// baseRef is where an MSM finds its bases: on the device, or in host memory.
type baseRef struct {
	dev  cuda.DevPtr
	host unsafe.Pointer
}

// offset is the reference of the base i places further, of size bytes each.
func (r baseRef) offset(i int, size uint64) baseRef {
	off := uint64(i) * size
	if r.host != nil {
		return baseRef{host: unsafe.Add(r.host, off)}
	}
	return baseRef{dev: r.dev + cuda.DevPtr(off)}
}

// ref resolves bases [offset, offset+n) of d wherever they live.
func (d *deviceBases) ref(offset, n int) (baseRef, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.freed {
		return baseRef{}, backend.ErrClosed
	}
	if offset < 0 || n < 0 || offset+n > d.n {
		return baseRef{}, fmt.Errorf("gpu backend: range [%d, %d) outside %d bases", offset, offset+n, d.n)
	}
	off := uint64(offset) * d.pointBytes()
	if d.host != nil {
		return baseRef{host: unsafe.Add(d.host.ptr(), off)}, nil
	}
	return baseRef{dev: d.ptr + cuda.DevPtr(off)}, nil
}

func (d *deviceBases) pointBytes() uint64 {
	if d.g2 {
		return g2AffineBytes
	}
	return g1AffineBytes
}

// StreamsKeys reports whether the library has the streamed MSMs.
func (b *Backend) StreamsKeys() bool { return b.lib.HasHostMSM() }

var _ backend.CapLifter = (*Backend)(nil)

// WithoutCap runs f with the backend's device-memory cap lifted (see backend.CapLifter)
// and sets it again after, which fails if more is then allocated than the cap allows.
// The cap is per process and device: work running meanwhile is not capped either (the
// pipeline lifts it only while loading a benchmark key). Without a cap it just runs f.
func (b *Backend) WithoutCap(f func() error) error {
	if b.memLimit == 0 {
		return f()
	}
	if err := b.lib.SetMemoryLimit(b.device, 0); err != nil {
		return wrap("lift the device memory cap", err)
	}
	err := f()
	if capErr := b.lib.SetMemoryLimit(b.device, b.memLimit); capErr != nil {
		return errors.Join(err, fmt.Errorf("gpu backend: setting the device memory cap of %d bytes again: %w", b.memLimit, capErr))
	}
	return err
}
