package pipeline

import (
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// synthMode is what the synthesis stage produces for the device workers. It is fixed per
// pipeline by its devices' capabilities, because a synthesized partition may be taken by
// any device worker.
type synthMode struct {
	// hostEval: some device proves from host-evaluated rows, so every slot carries
	// a, b, c = A·z, B·z, C·z (devices with the pre-compiled path ignore them).
	hostEval bool
	// pack: every device takes the witness bit-packed; the synthesis worker packs the
	// aux part of z in place into the slot's bitmaps (only without hostEval).
	pack bool
}

func modeOf(backends []backend.Backend) synthMode {
	m := synthMode{pack: true}
	for _, be := range backends {
		c := capsOf(be)
		m.hostEval = m.hostEval || !c.resident
		m.pack = m.pack && c.packed
	}
	m.pack = m.pack && !m.hostEval
	return m
}

// hostSlot is the working-set slot of one partition of h's circuit: z, plus the row
// vectors when rows are evaluated on the host, plus the bitmaps when z is packed.
func (p *Pipeline) hostSlot(h Hint) slotShape {
	n := h.Counts.NumInputs + h.Counts.NumAux
	switch {
	case p.mode.hostEval:
		return shapeFor(n, h.Counts.DomainSize())
	case p.mode.pack:
		return slotShape{n: n, words: bitmapWords(h.Counts.NumAux)}
	default:
		return slotShape{n: n}
	}
}

// hostEntryBytes is a circuit resident on the host: its recording, and its parameters
// unless keys are made on the devices (Deps.Keys: no parameter bytes on the host).
func (p *Pipeline) hostEntryBytes(h Hint) int64 {
	if p.deps.Keys != nil {
		return h.ShapeBytes + p.hostStreamBytes(h)
	}
	return h.hostEntryBytes() + p.hostStreamBytes(h)
}

// deviceEntryBytes is a circuit resident on device d: its proving key (less the vectors
// its memory tier streams from host memory, tiers.go), and on a device
// with the pre-compiled path its recorded shape (CSR sides and coefficient table, about
// the shape file's size, plus one 4-byte index per a and b density entry) and the proof
// buffers the GPU backend keeps with the shape from its first proof until it is closed:
// one set per proof stream (backend.ConcurrentProver).
func (p *Pipeline) deviceEntryBytes(d *device, h Hint) int64 {
	return p.deviceEntryBytesWith(d, h, p.placementOf(d, h))
}

// residentEntryBytes is deviceEntryBytes with the whole key on the device.
func (p *Pipeline) residentEntryBytes(d *device, h Hint) int64 {
	if !d.caps.resident {
		return h.ParamsBytes
	}
	c := h.Counts
	indices := int64(c.NumInputs+c.AAux+c.BInput+c.BAux) * 4
	return h.ParamsBytes + h.ShapeBytes + indices + int64(d.caps.streams)*proofPoolBytes(c.Sizes)
}

// proofPoolBytes is one proof buffer set of a pre-compiled device: z = inputs ‖ aux
// and the three domain-sized row vectors a, b, c, 32 bytes per element (the GPU
// backend's gpu.ProofPoolBytes; the formula is repeated here because the pipeline does not
// import a backend).
func proofPoolBytes(s r1cs.Sizes) int64 {
	return int64(s.NumInputs+s.NumAux+3*s.DomainSize()) * 32
}

func bitmapWords(n int) int { return (n + 63) / 64 }

// deviceWorkingSet is what a partition of h's circuit holds on device d beyond the
// circuit's entry: nothing on a device with the pre-compiled path, whose proof buffers
// are pooled with the shape and counted once per proof stream in deviceEntryBytes (a
// second partition waits for a stream, not for memory); z and the three row vectors on
// a device that takes host-evaluated rows.
func (p *Pipeline) deviceWorkingSet(d *device, h Hint) int64 {
	if d.caps.resident {
		return 0
	}
	return h.deviceWorkingSet()
}
