package sealer

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/sealer/graph"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// The label and encoding checks sit behind the column and path checks: a C1 output whose
// columns and trees are consistent but whose labels are not cannot be made by editing bytes.
// These tests run the two steps directly on a valid proof with one value changed.

func validVerifier(t *testing.T) (*c1Verifier, *vanilla.SealCommitPhase1Output) {
	t.Helper()
	info, _ := types.SealProof(abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	s, err := refseal.Seal(info, abi.SectorID{Miner: 5, Number: 6}, [32]byte{7}, make([]byte, info.SectorSize))
	if err != nil {
		t.Fatal(err)
	}
	c1, err := s.C1([32]byte{8})
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.ForSealProof(info)
	if err != nil {
		t.Fatal(err)
	}
	return &c1Verifier{info: info, graph: g, out: c1, treeD: treeD(info.SectorShape), treeR: treeR(info.SectorShape)}, c1
}

func TestVerifyLabelsCatchesWrongLabel(t *testing.T) {
	v, c1 := validVerifier(t)
	p := &c1.VanillaProofs[0][0]
	c := p.LabelingProofs[0].Node
	if f := v.verifyLabels(p, c); f != nil {
		t.Fatalf("valid labels rejected: %+v", f)
	}
	p.ReplicaColumnProofs.CX.Rows[1][4] ^= 1
	if f := v.verifyLabels(p, c); f == nil || f.check != CheckLabel || f.where != "labeling proof layer 2" {
		t.Fatalf("got %+v, want label check at layer 2", f)
	}
}

func TestVerifyEncodingCatchesWrongData(t *testing.T) {
	v, c1 := validVerifier(t)
	p := &c1.VanillaProofs[0][1]
	c := p.LabelingProofs[0].Node
	if f := v.verifyEncoding(p, c); f != nil {
		t.Fatalf("valid encoding rejected: %+v", f)
	}
	p.CommDProofs.Leaf[0] ^= 1
	if f := v.verifyEncoding(p, c); f == nil || f.check != CheckEncoding {
		t.Fatalf("got %+v, want encoding check", f)
	}
}
