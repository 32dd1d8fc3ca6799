package gpu

import (
	"fmt"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/cuda"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// msmDevice runs the library MSM on bases (resident or streamed) and a host scalar
// vector; out receives the window sums (room for cuda.MaxWindows points).
func (b *Backend) msmDevice(g2 bool, d *deviceBases, offset int, scalars []fr.Element, out unsafe.Pointer) (nwins, c uint32, err error) {
	err = b.call(func(ctx cuda.Ctx) error {
		ref, err := d.ref(offset, len(scalars))
		if err != nil {
			return err
		}
		sc, err := b.devBuf(ctx, unsafe.Pointer(&scalars[0]), uint64(len(scalars))*frBytes)
		if err != nil {
			return err
		}
		defer func() { _ = b.lib.Free(ctx, sc) }()
		nwins, c, err = b.msmOn(ctx, g2, ref, sc, len(scalars), out)
		return err
	})
	return nwins, c, err
}

// MSMG1 returns Σ scalars[i]·bases[offset+i].
func (b *Backend) MSMG1(bases backend.G1Bases, offset int, scalars []fr.Element) (bls.G1Jac, error) {
	d, err := b.g1(bases)
	if err != nil {
		return g1Infinity(), err
	}
	if _, err := d.ref(offset, len(scalars)); err != nil || len(scalars) == 0 {
		return g1Infinity(), err
	}
	var wins [cuda.MaxWindows]g1XYZZ
	nwins, c, err := b.msmDevice(false, d, offset, scalars, unsafe.Pointer(&wins[0]))
	if err != nil {
		return g1Infinity(), wrap("G1 MSM", err)
	}
	return combineG1(wins[:nwins], c), nil
}

// MSMG2 returns Σ scalars[i]·bases[offset+i].
func (b *Backend) MSMG2(bases backend.G2Bases, offset int, scalars []fr.Element) (bls.G2Jac, error) {
	d, err := b.g2(bases)
	if err != nil {
		return g2Infinity(), err
	}
	if _, err := d.ref(offset, len(scalars)); err != nil || len(scalars) == 0 {
		return g2Infinity(), err
	}
	var wins [cuda.MaxWindows]g2XYZZ
	nwins, c, err := b.msmDevice(true, d, offset, scalars, unsafe.Pointer(&wins[0]))
	if err != nil {
		return g2Infinity(), wrap("G2 MSM", err)
	}
	return combineG2(wins[:nwins], c), nil
}

func checkBitmap(bitmap []uint64, n int) error {
	if n < 0 || (n+63)/64 > len(bitmap) {
		return fmt.Errorf("gpu backend: bitmap of %d words cannot hold %d bits", len(bitmap), n)
	}
	return nil
}

func (b *Backend) batchAdd(g2 bool, ptr cuda.DevPtr, bitmap []uint64, n int, out unsafe.Pointer) error {
	var bm unsafe.Pointer
	if n > 0 {
		bm = unsafe.Pointer(&bitmap[0])
	}
	return b.call(func(ctx cuda.Ctx) error { return b.lib.BatchAdd(ctx, g2, ptr, bm, uint64(n), out) })
}

// BatchAddG1 returns Σ bases[offset+i] over the set bits i < n of bitmap.
func (b *Backend) BatchAddG1(bases backend.G1Bases, offset int, bitmap []uint64, n int) (bls.G1Jac, error) {
	var inf bls.G1Jac
	inf.X.SetOne()
	inf.Y.SetOne()
	if err := checkBitmap(bitmap, n); err != nil {
		return inf, err
	}
	d, err := b.g1(bases)
	if err != nil {
		return inf, err
	}
	ptr, err := d.at(offset, n)
	if err != nil || n == 0 {
		return inf, err
	}
	var r g1XYZZ
	if err := b.batchAdd(false, ptr, bitmap, n, unsafe.Pointer(&r)); err != nil {
		return inf, wrap("G1 batch addition", err)
	}
	return r.jac(), nil
}

// BatchAddG2 is the G2 counterpart of BatchAddG1.
func (b *Backend) BatchAddG2(bases backend.G2Bases, offset int, bitmap []uint64, n int) (bls.G2Jac, error) {
	var inf bls.G2Jac
	inf.X.SetOne()
	inf.Y.SetOne()
	if err := checkBitmap(bitmap, n); err != nil {
		return inf, err
	}
	d, err := b.g2(bases)
	if err != nil {
		return inf, err
	}
	ptr, err := d.at(offset, n)
	if err != nil || n == 0 {
		return inf, err
	}
	var r g2XYZZ
	if err := b.batchAdd(true, ptr, bitmap, n, unsafe.Pointer(&r)); err != nil {
		return inf, wrap("G2 batch addition", err)
	}
	return r.jac(), nil
}
