package gpu

import (
	"errors"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// TestReadBasesRoundTrip: bases read back from the device equal what was loaded (G1 and
// G2, including the point at infinity); a range read returns that range; a range past the
// end and closed bases are refused.
func TestReadBasesRoundTrip(t *testing.T) {
	b := testBackend(t)
	rng := rand.New(rand.NewPCG(81, 1))
	g1s, g2s := randPoints(rng, 37)
	g1s[5] = bls.G1Affine{}
	g2s = g2s[:11]
	d1, err := b.LoadG1(g1s)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := b.LoadG2(g2s)
	if err != nil {
		t.Fatal(err)
	}
	got1, got2 := make([]bls.G1Affine, len(g1s)), make([]bls.G2Affine, len(g2s))
	if err := b.ReadG1(d1, 0, got1); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadG2(d2, 0, got2); err != nil {
		t.Fatal(err)
	}
	for i := range g1s {
		if !got1[i].Equal(&g1s[i]) {
			t.Fatalf("G1 base %d read back differs", i)
		}
	}
	for i := range g2s {
		if !got2[i].Equal(&g2s[i]) {
			t.Fatalf("G2 base %d read back differs", i)
		}
	}
	part := make([]bls.G1Affine, 9)
	if err := b.ReadG1(d1, 20, part); err != nil {
		t.Fatal(err)
	}
	for i := range part {
		if !part[i].Equal(&g1s[20+i]) {
			t.Fatalf("G1 base %d of a range read differs", 20+i)
		}
	}
	if err := b.ReadG1(d1, 1, got1); err == nil {
		t.Error("ReadG1 of a range past the end accepted")
	}
	d1.Close()
	if err := b.ReadG1(d1, 0, got1); !errors.Is(err, backend.ErrClosed) {
		t.Errorf("ReadG1 of closed bases: %v, want ErrClosed", err)
	}
}
