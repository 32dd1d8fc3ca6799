package pipeline

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// residentDouble is a CPU backend with the pre-compiled path done on the host: the
// "resident" shape is the recorded Shape itself, and a proof is Shape.Eval, then the
// CPU backend's QuotientH and MSMs, exactly as backend.ShapeEvaluator specifies. It lets
// the pipeline's resident path run in CI. It also implements backend.HostPinner and
// records pins, so tests can see which host memory uploads came from.
type residentDouble struct {
	backend.Backend

	failPins bool // PinHost always fails (set before use)

	mu             sync.Mutex
	pinAttempts    int
	pins, unpins   int
	pinned         map[uintptr]int // start of each pinned range → length in bytes
	unpinnedUpload int             // proofs whose inputs came from memory that was not pinned
	loaded, closed int             // resident shapes
	reserved       int             // ReserveProofBuffers calls
	plain, packed  int             // proofs by entry point
}

// packedDouble adds backend.PackedShapeEvaluator: it unpacks on the host.
type packedDouble struct{ *residentDouble }

var (
	_ backend.ShapeEvaluator       = (*residentDouble)(nil)
	_ backend.HostPinner           = (*residentDouble)(nil)
	_ backend.BufferReserver       = (*residentDouble)(nil)
	_ backend.PackedShapeEvaluator = packedDouble{}
)

func newResidentDouble(t testing.TB) *residentDouble {
	return &residentDouble{Backend: newCPU(t), pinned: make(map[uintptr]int)}
}

func (d *residentDouble) Name() string { return "resident-double" }

type doubleShape struct {
	d      *residentDouble
	shape  *r1cs.Shape
	once   sync.Once
	closed bool
}

func (s *doubleShape) Close() error {
	s.once.Do(func() {
		s.d.mu.Lock()
		s.d.closed++
		s.closed = true
		s.d.mu.Unlock()
	})
	return nil
}

func (d *residentDouble) LoadShape(s *r1cs.Shape) (backend.ResidentShape, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.loaded++
	d.mu.Unlock()
	return &doubleShape{d: d, shape: s}, nil
}

// ReserveProofBuffers counts the reservations; the double has no device buffers.
func (d *residentDouble) ReserveProofBuffers(s backend.ResidentShape) error {
	ds, ok := s.(*doubleShape)
	if !ok || ds.d != d || ds.closed {
		return errors.New("double: reserve on a shape it did not load, or a closed one")
	}
	d.mu.Lock()
	d.reserved++
	d.mu.Unlock()
	return nil
}

func (d *residentDouble) reservations() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reserved
}

func (d *residentDouble) PinHost(v []fr.Element) (func() error, error) {
	if len(v) == 0 {
		return nil, errors.New("double: pin of an empty vector")
	}
	start := uintptr(unsafe.Pointer(&v[0]))
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pinAttempts++
	if d.failPins {
		return nil, errors.New("double: pinning refused")
	}
	if _, ok := d.pinned[start]; ok {
		return nil, fmt.Errorf("double: %#x pinned twice", start)
	}
	d.pinned[start] = len(v) * int(frBytes)
	d.pins++
	var once sync.Once
	return func() error {
		once.Do(func() {
			d.mu.Lock()
			delete(d.pinned, start)
			d.unpins++
			d.mu.Unlock()
		})
		return nil
	}, nil
}

// isPinned reports whether the bytes of the (non-empty) vector at p lie in a pinned range.
func (d *residentDouble) isPinned(p unsafe.Pointer, bytes int) bool {
	at := uintptr(p)
	for start, n := range d.pinned {
		if at >= start && at+uintptr(bytes) <= start+uintptr(n) {
			return true
		}
	}
	return false
}

func (d *residentDouble) noteUpload(packed bool, vecs ...[]fr.Element) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if packed {
		d.packed++
	} else {
		d.plain++
	}
	for _, v := range vecs {
		if len(v) > 0 && !d.isPinned(unsafe.Pointer(&v[0]), len(v)*int(frBytes)) {
			d.unpinnedUpload++
			return
		}
	}
}

func (d *residentDouble) ProveResident(s backend.ResidentShape, inputs, aux []fr.Element, k backend.ResidentKey) (backend.ResidentResults, error) {
	d.noteUpload(false, inputs, aux)
	return d.prove(s, inputs, aux, k)
}

func (p packedDouble) ProveResidentPacked(s backend.ResidentShape, inputs []fr.Element, aux *backend.PackedAux, k backend.ResidentKey) (backend.ResidentResults, error) {
	if err := aux.Validate(); err != nil {
		return backend.ResidentResults{}, err
	}
	p.noteUpload(true, inputs, aux.Values)
	return p.prove(s, inputs, aux.Unpack(), k)
}

// prove is the specification of ShapeEvaluator on the host.
func (d *residentDouble) prove(s backend.ResidentShape, inputs, aux []fr.Element, k backend.ResidentKey) (backend.ResidentResults, error) {
	var res backend.ResidentResults
	start := time.Now()
	ds, ok := s.(*doubleShape)
	if !ok || ds.d != d {
		return res, errors.New("double: shape from another backend")
	}
	d.mu.Lock()
	closed := ds.closed
	d.mu.Unlock()
	if closed {
		return res, backend.ErrClosed
	}
	shape := ds.shape
	if len(inputs) != shape.NumInputs || len(aux) != shape.NumAux {
		return res, fmt.Errorf("double: %d inputs and %d aux for a shape of %d and %d", len(inputs), len(aux), shape.NumInputs, shape.NumAux)
	}
	m := shape.DomainSize()
	z := append(append(make([]fr.Element, 0, len(inputs)+len(aux)), inputs...), aux...)
	a, b, c := make([]fr.Element, m), make([]fr.Element, m), make([]fr.Element, m)
	t := time.Now()
	if err := shape.Eval(z, a, b, c, 1); err != nil {
		return res, err
	}
	res.Timings.Eval = time.Since(t)
	if err := d.QuotientH(a, b, c); err != nil {
		return res, err
	}
	aScalars := selectScalars(inputs, nil, aux, &shape.AAux)
	bScalars := selectScalars(inputs, &shape.BInput, aux, &shape.BAux)
	var errs [5]error
	res.H, errs[0] = d.MSMG1(k.H, 0, a[:m-1])
	res.L, errs[1] = d.MSMG1(k.L, 0, aux)
	res.A, errs[2] = d.MSMG1(k.A, 0, aScalars)
	res.B1, errs[3] = d.MSMG1(k.BG1, 0, bScalars)
	res.B2, errs[4] = d.MSMG2(k.BG2, 0, bScalars)
	res.Timings.Upload = time.Microsecond // nothing is uploaded; a non-zero stage for the trace
	res.Timings.Total = time.Since(start)
	return res, errors.Join(errs[:]...)
}

// selectScalars is the inputs selected by in (all when nil), then the aux values
// selected by auxBits: the scalars of the density-filtered a and b vectors.
func selectScalars(inputs []fr.Element, in *r1cs.Bitmap, aux []fr.Element, auxBits *r1cs.Bitmap) []fr.Element {
	var out []fr.Element
	for i := range inputs {
		if in == nil || in.Get(i) {
			out = append(out, inputs[i])
		}
	}
	for j := range aux {
		if auxBits.Get(j) {
			out = append(out, aux[j])
		}
	}
	return out
}

func (d *residentDouble) counts() (pins, unpins, unpinnedUploads, loaded, closed, plain, packed int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pins, d.unpins, d.unpinnedUpload, d.loaded, d.closed, d.plain, d.packed
}

// bitsCircuit has a witness of mostly zeros and ones, as Filecoin's: X's 64 bits, each
// constrained boolean, recomposed into the public input X, plus a few field values
// (X², X⁴, …). Its id does not depend on X, so partitions share one shape.
type bitsCircuit struct {
	X       uint64
	Squares int
}

func (c *bitsCircuit) ID() prover.CircuitID {
	return prover.CircuitID(fmt.Sprintf("test-bits-%d", c.Squares))
}

func (c *bitsCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	var x fr.Element
	x.SetUint64(c.X)
	out := cs.AllocInput(x)
	var sum, one, a, b, cc r1cs.LC
	one.Add(r1cs.One)
	var pow fr.Element
	pow.SetOne()
	for i := 0; i < 64; i++ {
		var v fr.Element
		v.SetUint64(c.X >> i & 1)
		bit := cs.Alloc(v)
		a.Reset()
		a.Add(bit)
		b.Reset()
		b.Add(r1cs.One)
		b.Sub(bit)
		cc.Reset()
		cs.Enforce("boolean", &a, &b, &cc) // bit·(1 − bit) = 0
		sum.AddTerm(bit, &pow)
		pow.Double(&pow)
	}
	cc.Reset()
	cc.Add(out)
	cs.Enforce("recompose", &sum, &one, &cc)
	prev, val := out, x
	for i := 0; i < c.Squares; i++ {
		val.Square(&val)
		next := cs.Alloc(val)
		a.Reset()
		a.Add(prev)
		cc.Reset()
		cc.Add(next)
		cs.Enforce("square", &a, &a, &cc)
		prev = next
	}
	return nil
}
