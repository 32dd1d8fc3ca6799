package kit

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// The verifier plays the chain: it checks proofs against the dev verifying key the
// daemons prove with (the prefix of the dev parameter file in the shared test cache) and
// public inputs derived from the Filecoin data alone (C1 commitments and seed; PoSt
// sectors, comm_r and randomness), never from what the daemon reports.

// VerifySeal checks a SealCommit2 proof (192 bytes per partition) of the C1 output c1.
func VerifySeal(t testing.TB, c1 []byte, proof []byte) error {
	t.Helper()
	out, err := vanilla.DecodeC1(c1)
	if err != nil {
		return fmt.Errorf("kit: C1 output: %w", err)
	}
	info, err := out.Validate()
	if err != nil {
		return err
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return err
	}
	if len(proofs) != info.PartitionCount {
		return fmt.Errorf("kit: %d partition proofs, want %d", len(proofs), info.PartitionCount)
	}
	vk := verifyingKey(t, info.CircuitID, func() (prover.Circuit, error) { return porep.Blank(porep.ConfigFor(info)) })
	for k := range proofs {
		public, err := porep.SealPublicInputs(info, out.ReplicaID, out.CommD, out.CommR, out.Seed, k)
		if err != nil {
			return err
		}
		if err := vk.Verify(&proofs[k], public); err != nil {
			return fmt.Errorf("kit: partition %d: %w", k, err)
		}
	}
	return nil
}

// PoStSector is a sector as the chain lists it for a PoSt: its id and comm_r.
type PoStSector struct {
	Number abi.SectorNumber
	CommR  [32]byte
}

// VerifyPoSt checks partition k's PoSt proof (one 192-byte proof) of type ppt over all
// the sectors of the proof, in order (Winning: the one challenged sector).
func VerifyPoSt(t testing.TB, ppt abi.RegisteredPoStProof, randomness []byte, sectors []PoStSector, k int, proof []byte) error {
	t.Helper()
	info, err := types.PoStProof(ppt)
	if err != nil {
		return err
	}
	rnd, ok := types.MaskRandomness(randomness)
	if !ok {
		return fmt.Errorf("kit: randomness of %d bytes", len(randomness))
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return err
	}
	if len(proofs) != 1 {
		return fmt.Errorf("kit: %d proofs for one PoSt partition", len(proofs))
	}
	pub := make([]post.PublicSector, len(sectors))
	for i, s := range sectors {
		pub[i] = post.PublicSector{ID: uint64(s.Number), CommR: s.CommR}
	}
	public, err := post.PublicInputs(info, rnd, pub, k)
	if err != nil {
		return err
	}
	vk := verifyingKey(t, info.CircuitID, func() (prover.Circuit, error) { return post.Blank(post.ConfigFor(info)) })
	return vk.Verify(&proofs[0], public)
}

var (
	vkMu    sync.Mutex
	vkCache = map[string]*groth16.VerifyingKey{}
)

// verifyingKey records the circuit once per process to name its dev parameter file, and
// reads the verifying key from that file's prefix. The file exists once a daemon sharing
// the test cache has proved with it.
func verifyingKey(t testing.TB, circuitID string, blank func() (prover.Circuit, error)) *groth16.VerifyingKey {
	t.Helper()
	vkMu.Lock()
	defer vkMu.Unlock()
	if vk, ok := vkCache[circuitID]; ok {
		return vk
	}
	c, err := blank()
	if err != nil {
		t.Fatalf("kit: blank circuit %s: %v", circuitID, err)
	}
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if err := c.Synthesize(rec); err != nil {
		t.Fatalf("kit: recording %s: %v", circuitID, err)
	}
	path := filepath.Join(srstest.Cache(t).Dir, srs.DevParamsName(rec.Finish()))
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("kit: dev parameters of %s: %v", circuitID, err)
	}
	defer f.Close()
	vk, err := groth16.ReadVerifyingKey(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		t.Fatalf("kit: verifying key of %s in %s: %v", circuitID, path, err)
	}
	vkCache[circuitID] = vk
	return vk
}
