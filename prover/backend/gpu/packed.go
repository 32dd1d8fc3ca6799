package gpu

import (
	"math/bits"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

var _ backend.PackedShapeEvaluator = (*Backend)(nil)

// uploadPacked writes z = inputs ‖ unpack(aux) into p.z: the inputs and the packed aux
// (two bitmaps, the per-word ranks and the non-boolean values) cross the bus, and
// snarkpipe_fr_unpack expands them. The packed arrays are staged in p.c and p.b, which
// the row products overwrite only afterwards, so a proof allocates nothing for them
// unless they do not fit there. aux has been validated against the shape.
func (b *Backend) uploadPacked(ctx cuda.Ctx, rs *residentShape, inputs []fr.Element, aux *backend.PackedAux, p *proofBufs) error {
	if err := b.lib.Upload(ctx, p.z, unsafe.Pointer(&inputs[0]), uint64(rs.inputs)*frBytes); err != nil {
		return err
	}
	if rs.aux == 0 {
		return nil
	}
	rank := wordRanks(aux.Field)
	rowBytes := uint64(rs.domain) * frBytes
	st := staging{b: b, ctx: ctx, free: []stageRegion{{p.c, rowBytes}, {p.b, rowBytes}}}
	defer st.release()
	words := uint64(len(aux.Field))
	field, err := st.put(unsafe.Pointer(&aux.Field[0]), words*8)
	if err != nil {
		return err
	}
	ones, err := st.put(unsafe.Pointer(&aux.Ones[0]), words*8)
	if err != nil {
		return err
	}
	dRank, err := st.put(unsafe.Pointer(&rank[0]), words*4)
	if err != nil {
		return err
	}
	var vp unsafe.Pointer
	if len(aux.Values) > 0 {
		vp = unsafe.Pointer(&aux.Values[0])
	}
	vals, err := st.put(vp, uint64(len(aux.Values))*frBytes)
	if err != nil {
		return err
	}
	one := fr.One()
	return b.lib.Unpack(ctx, p.z+cuda.DevPtr(rs.inputs*frBytes), uint64(rs.aux), field, ones, dRank, vals, unsafe.Pointer(&one))
}

// stageAlign keeps every staged array at the alignment of a fresh allocation, so the
// kernels' vector loads see the addresses they would see in a buffer of their own.
const stageAlign = 256

// stageRegion is unused device memory a staging may carve arrays from.
type stageRegion struct {
	ptr   cuda.DevPtr
	bytes uint64
}

// staging uploads host arrays into the first region with room, or else into a
// temporary allocation that release frees.
type staging struct {
	b     *Backend
	ctx   cuda.Ctx
	free  []stageRegion
	temps []cuda.DevPtr
}

func (s *staging) put(src unsafe.Pointer, bytes uint64) (cuda.DevPtr, error) {
	need := max(bytes, 1)
	for i := range s.free {
		r := &s.free[i]
		if r.bytes < need {
			continue
		}
		d := r.ptr
		taken := min(r.bytes, (need+stageAlign-1)/stageAlign*stageAlign)
		r.ptr, r.bytes = r.ptr+cuda.DevPtr(taken), r.bytes-taken
		if src != nil && bytes > 0 {
			if err := s.b.lib.Upload(s.ctx, d, src, bytes); err != nil {
				return 0, err
			}
		}
		return d, nil
	}
	d, err := s.b.alloc(s.ctx, need)
	if err != nil {
		return 0, err
	}
	s.temps = append(s.temps, d)
	if src != nil && bytes > 0 {
		err = s.b.lib.Upload(s.ctx, d, src, bytes)
	}
	return d, err
}

func (s *staging) release() {
	for _, t := range s.temps {
		_ = s.b.free(s.ctx, t)
	}
	s.temps = nil
}

// wordRanks returns, per bitmap word, the number of set bits in the words before it.
func wordRanks(words []uint64) []uint32 {
	out := make([]uint32, len(words))
	n := uint32(0)
	for i, w := range words {
		out[i] = n
		n += uint32(bits.OnesCount64(w))
	}
	return out
}
