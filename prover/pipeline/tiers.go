package pipeline

import (
	"fmt"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Memory tiers. A circuit's proving key is resident on a device when the device's budget
// holds it beside the recorded shape and the proof buffers; otherwise, on a device that
// can stream key vectors from page-locked host memory (backend.KeyStreamer), the vectors
// that do not fit stay in host memory and cross the bus for every proof, each MSM copying
// its next chunk while it works on this one:
//   - resident: the whole key on the device (a 32 GiB PoRep needs ~70 GiB: H200, B200);
//   - partly resident: the vectors that fit stay on the device, the others stream, the
//     cheapest to stream first (streamOrder);
//   - streamed: every vector streams; the shape and one proof buffer set stay.
// The shape and the proof buffers (16 GiB at 32 GiB PoRep) are not streamed yet: a device
// whose budget cannot hold them refuses the circuit, as before.

// KeyTier forces a tier (Config.KeyTier).
type KeyTier string

// The tiers.
const (
	TierAuto     KeyTier = ""         // chosen per device and circuit (the default)
	TierResident KeyTier = "resident" // the whole key on the device
	TierPartial  KeyTier = "partial"  // as few vectors streamed as make the circuit fit
	TierStreamed KeyTier = "streamed" // every vector streamed
)

// ParseKeyTier reads a key_tier setting ("auto" or "" for the default).
func ParseKeyTier(s string) (KeyTier, error) {
	switch t := KeyTier(strings.ToLower(strings.TrimSpace(s))); t {
	case "auto", TierAuto:
		return TierAuto, nil
	case TierResident, TierPartial, TierStreamed:
		return t, nil
	}
	return "", fmt.Errorf("pipeline: key_tier %q: want auto, resident, partial or streamed", s)
}

// streamOrder is the order in which vectors leave the device when a key does not fit:
// B_G2 first (its G2 MSM does three times G1's work per byte copied, so its copy hides
// best behind the work), then B_G1, A, L, and H last (the largest MSM, over every domain
// point, whose copy would cost the most if the bus were slow).
var streamOrder = []backend.KeyParts{backend.KeyBG2, backend.KeyBG1, backend.KeyA, backend.KeyL, backend.KeyH}

// keyPartBytes is the bytes of each key vector for counts c (96 per G1 point, 192 per G2
// point, as srs.ParamsBytes counts them).
func keyPartBytes(c r1cs.Counts, part backend.KeyParts) int64 {
	const g1, g2 = 96, 192
	nB := int64(c.BInput + c.BAux)
	switch part {
	case backend.KeyH:
		return int64(c.DomainSize()-1) * g1
	case backend.KeyL:
		return int64(c.NumAux) * g1
	case backend.KeyA:
		return int64(c.NumInputs+c.AAux) * g1
	case backend.KeyBG1:
		return nB * g1
	case backend.KeyBG2:
		return nB * g2
	}
	return 0
}

// streamedBytes is the bytes of the vectors named by parts.
func streamedBytes(c r1cs.Counts, parts backend.KeyParts) int64 {
	var n int64
	for _, p := range streamOrder {
		if parts&p != 0 {
			n += keyPartBytes(c, p)
		}
	}
	return n
}

// tierName names a placement for reports: resident, partly resident (which vectors
// stream) or streamed.
func tierName(parts backend.KeyParts) string {
	switch parts {
	case 0:
		return "resident"
	case backend.KeyAll:
		return "streamed"
	}
	return "partly resident (" + parts.String() + " streamed)"
}

// keyPlacement is the vectors of h's circuit that stream from host memory on device d:
// none when the device cannot stream or the key fits (or the tier is forced resident),
// else the fewest in streamOrder that make the device entry fit its budget beside the
// other pinned entries (all of them when none suffices: the admission check then refuses
// with the bytes still missing).
func (p *Pipeline) keyPlacement(d *device, h Hint) backend.KeyParts {
	if !d.caps.streamKeys || !d.caps.resident {
		return 0
	}
	switch p.cfg.KeyTier {
	case TierResident:
		return 0
	case TierStreamed:
		return backend.KeyAll
	}
	// From the budget alone, not from what else is resident now: the placement of a
	// circuit on a device must be the same at admission and at every load.
	// The MSMs' working room is kept free too: a key that fits only by leaving them
	// nothing would run every MSM in its narrowest batches (or not at all).
	avail := d.arena.capacity - msmRoom(h.Counts)
	if p.cfg.KeyTier == TierAuto && p.deviceEntryBytesWith(d, h, 0) <= avail {
		return 0
	}
	var parts backend.KeyParts
	for _, part := range streamOrder {
		parts |= part
		if p.deviceEntryBytesWith(d, h, parts) <= avail {
			break
		}
	}
	return parts
}

// msmRoom is the device memory a placement leaves beside the circuit's entry for its
// largest MSM's working set: about 40 bytes per domain element (the scalars' index and
// flag arrays, one window's sorted keys and values and the sort's storage, the buckets),
// 5 GiB at 32 GiB PoRep. The MSMs take more where there is more (wider batches, the
// pair rounds), and run with this much.
func msmRoom(c r1cs.Counts) int64 { return int64(c.DomainSize()) * 40 }

// streamReserve is counted in a device entry that streams: the MSMs' two chunk buffers
// (the library sizes them from the memory then spare; this keeps at least that much of
// the budget for them).
const streamReserve = 1 << 30

// deviceEntryBytesWith is deviceEntryBytes with the vectors named by host streamed: their
// bytes leave the device entry, the chunk buffers' reserve joins it.
func (p *Pipeline) deviceEntryBytesWith(d *device, h Hint, host backend.KeyParts) int64 {
	b := p.residentEntryBytes(d, h)
	if host != 0 {
		b += streamReserve - streamedBytes(h.Counts, host)
	}
	return b
}

// hostKeyBytes is the page-locked host memory the streamed vectors of h's circuit take,
// over every device (each device holds its own host copy of what it streams).
func (p *Pipeline) hostKeyBytes(h Hint) int64 {
	var n int64
	for _, d := range p.devices {
		n += streamedBytes(h.Counts, p.keyPlacement(d, h))
	}
	return n
}

// TierInfo is a circuit's memory tier on one device, as Preload and status report it.
type TierInfo struct {
	Tier        string           // resident, partly resident (… streamed), streamed
	Streamed    backend.KeyParts // the vectors kept in host memory
	HostBytes   int64            // their bytes, page-locked on the host
	DeviceBytes int64            // the circuit's device entry (key vectors kept, shape, proof buffers)
}

func (p *Pipeline) tierInfo(d *device, h Hint) TierInfo {
	parts := p.keyPlacement(d, h)
	return TierInfo{Tier: tierName(parts), Streamed: parts, HostBytes: streamedBytes(h.Counts, parts), DeviceBytes: p.deviceEntryBytes(d, h)}
}
