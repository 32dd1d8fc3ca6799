package gpu

import (
	"math/bits"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

var _ backend.PackedShapeEvaluator = (*Backend)(nil)

// uploadPacked writes z = inputs ‖ unpack(aux) on the device: the inputs and the packed
// aux (two bitmaps, the per-word ranks and the non-boolean values) cross the bus, and
// snarkpipe_fr_unpack expands them. aux has been validated against the shape.
func (b *Backend) uploadPacked(ctx cuda.Ctx, rs *residentShape, inputs []fr.Element, aux *backend.PackedAux, p *proofBufs) error {
	var err error
	if p.z, err = b.lib.Alloc(ctx, uint64(rs.inputs+rs.aux)*frBytes); err != nil {
		return err
	}
	if err = b.lib.Upload(ctx, p.z, unsafe.Pointer(&inputs[0]), uint64(rs.inputs)*frBytes); err != nil {
		return err
	}
	if rs.aux == 0 {
		return nil
	}
	rank := wordRanks(aux.Field)
	var temps []cuda.DevPtr
	defer func() {
		for _, t := range temps {
			_ = b.lib.Free(ctx, t)
		}
	}()
	up := func(src unsafe.Pointer, bytes uint64) (cuda.DevPtr, error) {
		d, err := b.devBuf(ctx, src, max(bytes, 1))
		if err == nil {
			temps = append(temps, d)
		}
		return d, err
	}
	words := uint64(len(aux.Field))
	field, err := up(unsafe.Pointer(&aux.Field[0]), words*8)
	if err != nil {
		return err
	}
	ones, err := up(unsafe.Pointer(&aux.Ones[0]), words*8)
	if err != nil {
		return err
	}
	dRank, err := up(unsafe.Pointer(&rank[0]), words*4)
	if err != nil {
		return err
	}
	var vp unsafe.Pointer
	if len(aux.Values) > 0 {
		vp = unsafe.Pointer(&aux.Values[0])
	}
	vals, err := up(vp, uint64(len(aux.Values))*frBytes)
	if err != nil {
		return err
	}
	one := fr.One()
	return b.lib.Unpack(ctx, p.z+cuda.DevPtr(rs.inputs*frBytes), uint64(rs.aux), field, ones, dRank, vals, unsafe.Pointer(&one))
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
