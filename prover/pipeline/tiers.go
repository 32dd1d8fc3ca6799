package pipeline

import (
	"fmt"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// Memory tiers. A circuit's proving key and recorded shape are resident on a device when
// the device's budget holds them beside the proof buffers and its largest MSM's working
// room; otherwise, on a device that can stream from page-locked host memory
// (backend.KeyStreamer, backend.ShapeStreamer), what does not fit stays in host memory and
// crosses the bus for every proof:
//   - resident: key and shape on the device (a 32 GiB PoRep needs ~70 GiB: H200, B200);
//   - partly resident: the key vectors that fit stay on the device, the others stream,
//     the cheapest to stream first (streamOrder); their MSMs copy the next chunk of bases
//     while they work on this one;
//   - streamed: every key vector streams, and if that is not enough the shape's CSR sides
//     too (A·z, B·z, C·z copy them by chunks of rows); the proof buffers (z and the three
//     domain vectors: 16 GiB at 32 GiB PoRep) and the density index lists stay.
// A device whose budget cannot hold even the streamed tier refuses the circuit.

// KeyTier forces a tier (Config.KeyTier).
type KeyTier string

// The tiers.
const (
	TierAuto     KeyTier = ""         // chosen per device and circuit (the default)
	TierResident KeyTier = "resident" // key and shape on the device
	TierPartial  KeyTier = "partial"  // as few key vectors streamed as make the circuit fit (at least one)
	TierStreamed KeyTier = "streamed" // every key vector and the shape streamed
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

// placement is what of a circuit stays in host memory on one device.
type placement struct {
	key   backend.KeyParts // key vectors streamed
	shape bool             // the shape's CSR sides streamed
}

func (pl placement) streams() bool { return pl.key != 0 || pl.shape }

// name names a placement for reports: resident, partly resident (which vectors stream)
// or streamed (with the shape, if it streams too).
func (pl placement) name() string {
	switch {
	case !pl.streams():
		return "resident"
	case pl.key == backend.KeyAll && pl.shape:
		return "streamed (key and shape)"
	case pl.key == backend.KeyAll:
		return "streamed (key; shape resident)"
	case pl.shape:
		return "partly resident (" + pl.key.String() + " and the shape streamed)"
	}
	return "partly resident (" + pl.key.String() + " streamed)"
}

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

// streamedBytes is the bytes of the key vectors named by parts.
func streamedBytes(c r1cs.Counts, parts backend.KeyParts) int64 {
	var n int64
	for _, p := range streamOrder {
		if parts&p != 0 {
			n += keyPartBytes(c, p)
		}
	}
	return n
}

// hostBytes is what pl keeps in host memory: the streamed vectors and, if it streams, the
// shape (about its recording's bytes).
func (pl placement) hostBytes(h Hint) int64 {
	n := streamedBytes(h.Counts, pl.key)
	if pl.shape {
		n += h.ShapeBytes
	}
	return n
}

// msmRoom is the device memory a placement leaves beside the circuit's entry for its
// largest MSM's working set: about 40 bytes per domain element (the scalars' index and
// flag arrays, one window's sorted keys and values and the sort's storage, the buckets),
// 5 GiB at 32 GiB PoRep. The MSMs take more where there is more (wider batches, the
// pair rounds), and run with this much.
func msmRoom(c r1cs.Counts) int64 { return int64(c.DomainSize()) * 40 }

// streamReserve is counted in a device entry that streams: the two chunk buffers of the
// streamed MSMs and sides (the library sizes the MSMs' from the memory then spare; this
// keeps at least that much of the budget for them).
const streamReserve = 1 << 30

// placementOf is where h's circuit lives on device d: resident when the device cannot
// stream or it fits (or the tier is forced resident); else the fewest key vectors in
// streamOrder, then the shape, that make the device entry and the MSM room fit the
// device's budget (everything streamed when nothing suffices: admission then refuses with
// the bytes still missing). From the budget alone, not from what else is resident now:
// a circuit's placement on a device is the same at admission and at every load.
func (p *Pipeline) placementOf(d *device, h Hint) placement {
	if !d.caps.streamKeys || !d.caps.resident {
		return placement{}
	}
	all := placement{key: backend.KeyAll, shape: d.caps.streamShape}
	switch p.cfg.KeyTier {
	case TierResident:
		return placement{}
	case TierStreamed:
		return all
	}
	avail := d.arena.capacity - msmRoom(h.Counts)
	var pl placement
	if p.cfg.KeyTier == TierAuto && p.deviceEntryBytesWith(d, h, pl) <= avail {
		return pl
	}
	for _, part := range streamOrder {
		pl.key |= part
		if p.deviceEntryBytesWith(d, h, pl) <= avail {
			return pl
		}
	}
	return all
}

// deviceEntryBytesWith is deviceEntryBytes under placement pl: what streams leaves the
// device entry, the chunk buffers' reserve joins it.
func (p *Pipeline) deviceEntryBytesWith(d *device, h Hint, pl placement) int64 {
	b := p.residentEntryBytes(d, h)
	if pl.streams() {
		b += streamReserve - pl.hostBytes(h)
	}
	return b
}

// hostStreamBytes is the page-locked host memory the streamed parts of h's circuit take,
// over every device (each device holds its own host copy of what it streams).
func (p *Pipeline) hostStreamBytes(h Hint) int64 {
	var n int64
	for _, d := range p.devices {
		n += p.placementOf(d, h).hostBytes(h)
	}
	return n
}

// TierInfo is a circuit's memory tier on one device, as Preload and status report it.
type TierInfo struct {
	Tier        string           // resident, partly resident (… streamed), streamed (…)
	Streamed    backend.KeyParts // the key vectors kept in host memory
	Shape       bool             // the shape's sides kept in host memory
	HostBytes   int64            // what streams, page-locked on the host
	DeviceBytes int64            // the circuit's device entry (what stays, proof buffers)
}

func (p *Pipeline) tierInfo(d *device, h Hint) TierInfo {
	pl := p.placementOf(d, h)
	return TierInfo{Tier: pl.name(), Streamed: pl.key, Shape: pl.shape, HostBytes: pl.hostBytes(h), DeviceBytes: p.deviceEntryBytes(d, h)}
}
