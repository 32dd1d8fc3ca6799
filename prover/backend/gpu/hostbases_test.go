package gpu

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/backend/cpu"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs/r1cstest"
)

// streamChunks are the chunk sizes the streamed-MSM tests cross: one point per chunk,
// odd sizes that leave a short last chunk, exactly the vector, more than the vector,
// and 0 (sized by the library from the device's memory).
func streamChunks(n int) []int { return []int{1, 7, n / 3, n - 1, n, n + 5, 0} }

// TestStreamedMSMMatchesResident: an MSM over bases streamed from host memory, for every
// chunk boundary case, gives the CPU's point (and so the resident MSM's), in G1 and G2,
// with random, Filecoin-like (mostly 0 and 1) and repeated scalars and a point at
// infinity among the bases; offsets into the vector read the right bases.
func TestStreamedMSMMatchesResident(t *testing.T) {
	b := testBackend(t)
	if !b.lib.HasHostMSM() {
		t.Skip("library built before the streamed MSMs")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	const n = 3000
	p1, p2 := randPoints(rng, n+3)
	p1[4], p2[9] = bls.G1Affine{}, bls.G2Affine{}
	h1, err := b.LoadG1Host(p1)
	if err != nil {
		t.Fatal(err)
	}
	defer h1.Close()
	h2, err := b.LoadG2Host(p2)
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if got, want := b.HostKeyBytes(), uint64(len(p1))*g1AffineBytes+uint64(len(p2))*g2AffineBytes; got < want {
		t.Fatalf("HostKeyBytes %d, the two vectors hold %d", got, want)
	}
	for _, kind := range []string{"random", "filecoin", "repeated", "one"} {
		s := scalarCase(rng, kind, n)
		want1 := cpuMSMG1(p1[3:3+n], s)
		want2 := cpuMSMG2(p2[3:3+n], s)
		for _, chunk := range streamChunks(n) {
			if chunk == 1 && kind != "random" {
				continue // 3000 chunk MSMs: once is enough
			}
			b.streamChunk = uint64(chunk)
			got1, err := b.MSMG1(h1, 3, s)
			if err != nil {
				t.Fatal(err)
			}
			if !got1.Equal(&want1) {
				t.Errorf("G1 %s chunk %d: streamed MSM differs from the CPU", kind, chunk)
			}
			if chunk == 1 {
				continue // G2 crosses single-point chunks in TestStreamedKeyProofMatchesCPU (3000 MSMs here)
			}
			got2, err := b.MSMG2(h2, 3, s)
			if err != nil {
				t.Fatal(err)
			}
			if !got2.Equal(&want2) {
				t.Errorf("G2 %s chunk %d: streamed MSM differs from the CPU", kind, chunk)
			}
		}
	}
	b.streamChunk = 0
	// Operations that need the bases on the device say so.
	if _, err := b.BatchAddG1(h1, 0, make([]uint64, 1), 10); !errors.Is(err, errHostBases) {
		t.Errorf("batch addition over streamed bases: %v, want errHostBases", err)
	}
	// Read back: the host copy holds the points.
	back := make([]bls.G1Affine, len(p1))
	if err := b.ReadG1(h1, 0, back); err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if !back[i].Equal(&p1[i]) {
			t.Fatalf("ReadG1 of streamed bases: point %d differs", i)
		}
	}
}

// TestStreamedKeyProofMatchesCPU: whole proofs on the pre-compiled path with some or all
// of the key streamed from host memory (loaded there, or moved there from the device
// with ProvingKey.Stream), across chunk boundaries, give the CPU backend's bytes for the
// same (r, s); closing the key returns the host memory.
func TestStreamedKeyProofMatchesCPU(t *testing.T) {
	b := testBackend(t)
	if !b.lib.HasHostMSM() {
		t.Skip("library built before the streamed MSMs")
	}
	c := r1cstest.Random{Seed: 41, Constraints: 700, Inputs: 3}
	shape, w := recordRandom(t, &c)
	params, err := groth16.DevSetup(shape, chachaReader{rand.NewChaCha8([32]byte{41, 1})})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{41, 2})})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pkCPU, err := groth16.NewProvingKey(cb, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	as := groth16.AssignmentOf(w)
	clone := func(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }
	as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
	want, _, err := pkCPU.Prove(&shape.Density, as, &rs)
	if err != nil {
		t.Fatal(err)
	}
	before := b.HostKeyBytes()
	cases := []struct {
		host, moved backend.KeyParts
		chunk       int
	}{
		{backend.KeyAll, 0, 0},
		{backend.KeyAll, 0, 64},
		{backend.KeyBG2 | backend.KeyA, 0, 33},
		{0, backend.KeyAll, 100},
		{backend.KeyH, backend.KeyL | backend.KeyBG1, 1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("host=%s,moved=%s,chunk=%d", tc.host, tc.moved, tc.chunk), func(t *testing.T) {
			b.streamChunk = uint64(tc.chunk)
			defer func() { b.streamChunk = 0 }()
			pk, err := groth16.NewProvingKeyIn(b, params, shape.Counts(), tc.host)
			if err != nil {
				t.Fatal(err)
			}
			defer pk.Close()
			if tc.moved != 0 {
				if err := pk.Stream(tc.moved); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := pk.Streamed(), tc.host|tc.moved; got != want {
				t.Errorf("Streamed() = %s, want %s", got, want)
			}
			rc, err := pk.LoadShape(shape)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
			if err != nil {
				t.Fatal(err)
			}
			if got.Bytes() != want.Bytes() {
				t.Fatalf("proof with streamed vectors %s differs from the CPU proof", pk.Streamed())
			}
		})
	}
	if after := b.HostKeyBytes(); after != before {
		t.Errorf("host memory of streamed keys: %d bytes before, %d after every key closed", before, after)
	}
}

// TestStreamedShapeProofMatchesCPU: proofs with the shape's sides streamed from host
// memory (chunks of 1 term, odd sizes, more than a side, the default), alone and with the
// key streamed too, give the CPU backend's bytes; closing returns the host memory.
func TestStreamedShapeProofMatchesCPU(t *testing.T) {
	b := testBackend(t)
	if !b.lib.HasHostCSR() || !b.lib.HasHostMSM() {
		t.Skip("library built before the streamed shapes")
	}
	c := r1cstest.Random{Seed: 43, Constraints: 600, Inputs: 3}
	shape, w := recordRandom(t, &c)
	params, err := groth16.DevSetup(shape, chachaReader{rand.NewChaCha8([32]byte{43, 1})})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := groth16.SampleRandomness(chachaReader{rand.NewChaCha8([32]byte{43, 2})})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := cpu.New(cpu.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	pkCPU, err := groth16.NewProvingKey(cb, params, shape.Counts())
	if err != nil {
		t.Fatal(err)
	}
	as := groth16.AssignmentOf(w)
	clone := func(v []fr.Element) []fr.Element { return append([]fr.Element(nil), v...) }
	as.A, as.B, as.C = clone(as.A), clone(as.B), clone(as.C)
	want, _, err := pkCPU.Prove(&shape.Density, as, &rs)
	if err != nil {
		t.Fatal(err)
	}
	before := b.HostKeyBytes()
	for _, tc := range []struct {
		chunk int
		key   backend.KeyParts
	}{{1, 0}, {7, 0}, {1000, backend.KeyAll}, {1 << 30, 0}, {0, backend.KeyH | backend.KeyBG2}} {
		t.Run(fmt.Sprintf("chunk=%d,key=%s", tc.chunk, tc.key), func(t *testing.T) {
			b.sideChunk = uint64(tc.chunk)
			defer func() { b.sideChunk = 0 }()
			pk, err := groth16.NewProvingKeyIn(b, params, shape.Counts(), tc.key)
			if err != nil {
				t.Fatal(err)
			}
			defer pk.Close()
			rc, err := pk.LoadShapeStreamed(shape)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			for k := 0; k < 2; k++ { // the second proof reuses the pooled buffers
				got, _, err := rc.Prove(w.Inputs, w.Aux, &rs)
				if err != nil {
					t.Fatal(err)
				}
				if got.Bytes() != want.Bytes() {
					t.Fatalf("proof %d with the shape streamed differs from the CPU proof", k)
				}
			}
		})
	}
	if after := b.HostKeyBytes(); after != before {
		t.Errorf("host memory of streamed shapes and keys: %d bytes before, %d after every one closed", before, after)
	}
}
