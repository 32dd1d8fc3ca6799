package gpu

import (
	"fmt"
	"math/big"
	"math/bits"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/snarkpipe/snarkpipe/cuda"
)

// quotientConsts is the constant block of snarkpipe_fr_quotient: ω, ω⁻¹, g, g⁻¹, 1/m and
// 1/(g^m − 1), with gnark-crypto's domain (ω equals bellperson's, g = 7).
type quotientConsts [6]fr.Element

func newQuotientConsts(m int) *quotientConsts {
	d := fft.NewDomain(uint64(m), fft.WithoutPrecompute())
	var k quotientConsts
	k[0] = d.Generator
	k[1] = d.GeneratorInv
	k[2] = d.FrMultiplicativeGen
	k[3] = d.FrMultiplicativeGenInv
	k[4] = d.CardinalityInv
	k[5].Exp(d.FrMultiplicativeGen, new(big.Int).SetUint64(uint64(m)))
	one := fr.One()
	k[5].Sub(&k[5], &one).Inverse(&k[5])
	return &k
}

func (b *Backend) consts(m int) *quotientConsts {
	b.domainsMu.Lock()
	defer b.domainsMu.Unlock()
	k, ok := b.domains[m]
	if !ok {
		k = newQuotientConsts(m)
		b.domains[m] = k
	}
	return k
}

// QuotientH computes h = (A·B − C)/(X^m − 1) on the device (see backend.Backend).
func (b *Backend) QuotientH(a, bv, c []fr.Element) error {
	m := len(a)
	if m < 2 || bits.OnesCount(uint(m)) != 1 || len(bv) != m || len(c) != m {
		return fmt.Errorf("gpu backend: QuotientH needs three vectors of one power-of-two length ≥ 2, got %d/%d/%d", len(a), len(bv), len(c))
	}
	if m > 1<<28 {
		return fmt.Errorf("gpu backend: QuotientH supports at most 2^28 points, got %d", m)
	}
	lg := uint32(bits.TrailingZeros(uint(m)))
	bytes := uint64(m) * frBytes
	err := b.call(func(ctx cuda.Ctx) error {
		k := b.consts(m)
		var ptrs [3]cuda.DevPtr
		defer func() {
			for _, p := range ptrs {
				if p != 0 {
					_ = b.lib.Free(ctx, p)
				}
			}
		}()
		for i, v := range [][]fr.Element{a, bv, c} {
			p, err := b.devBuf(ctx, unsafe.Pointer(&v[0]), bytes)
			if err != nil {
				return err
			}
			ptrs[i] = p
		}
		if err := b.lib.Quotient(ctx, ptrs[0], ptrs[1], ptrs[2], lg, unsafe.Pointer(&k[0])); err != nil {
			return err
		}
		return b.lib.Download(ctx, unsafe.Pointer(&a[0]), ptrs[0], bytes)
	})
	return wrap("QuotientH", err)
}
