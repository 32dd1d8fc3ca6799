package vanilla

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/snarkpipe/snarkpipe/types"
)

func seal(t testing.TB, id abi.RegisteredSealProof) *types.SealProofInfo {
	t.Helper()
	info, err := types.SealProof(id)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// serdeSingleProof is a Merkle proof written by hand following serde_json's rules for
// rust-fil-proofs' MerkleProof (externally tagged ProofData, struct field order, compact).
const serdeSingleProof = `{"data":{"Single":{"root":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,255],` +
	`"leaf":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],` +
	`"path":{"path":[{"hashes":[[7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7]],"index":1}]}}}}`

func TestMerkleProofSerdeLayout(t *testing.T) {
	r := &jsonReader{buf: []byte(serdeSingleProof)}
	lim := DefaultLimits()
	p := r.readMerkleProof(&lim)
	r.end()
	if r.err != nil {
		t.Fatal(r.err)
	}
	if p.Kind != ProofSingle || p.Root[31] != 255 || len(p.Base) != 1 || p.Base[0].Index != 1 || p.Base[0].Hashes[0][0] != 7 {
		t.Fatalf("decoded %+v", p)
	}
	if got := string(appendMerkleProof(nil, &p)); got != serdeSingleProof {
		t.Errorf("re-encoded\n%s\nwant\n%s", got, serdeSingleProof)
	}
}

// TestC1RoundTripByteIdentical encodes synthetic outputs of several proof types, decodes them
// and re-encodes: the bytes must be identical and the shape must validate.
func TestC1RoundTripByteIdentical(t *testing.T) {
	ids := []abi.RegisteredSealProof{
		abi.RegisteredSealProof_StackedDrg2KiBV1,
		abi.RegisteredSealProof_StackedDrg2KiBV1_1,
		abi.RegisteredSealProof_StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
		abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep,
	}
	if !testing.Short() { // 32 GiB output is ~50 MB of JSON
		ids = append(ids, abi.RegisteredSealProof_StackedDrg32GiBV1_1, abi.RegisteredSealProof_StackedDrg64GiBV1_1)
	}
	for _, id := range ids {
		info := seal(t, id)
		enc := EncodeC1(syntheticC1(info, uint64(id)))
		dec, err := DecodeC1(enc)
		if err != nil {
			t.Fatalf("%s: %v", info.RustName, err)
		}
		if got, err := dec.Validate(); err != nil || got.ID != id {
			t.Fatalf("%s: validate: %v", info.RustName, err)
		}
		if !bytes.Equal(EncodeC1(dec), enc) {
			t.Fatalf("%s: re-encoding differs", info.RustName)
		}
		// The layout keys serde writes, in order.
		s := string(enc)
		for _, want := range []string{`{"registered_proof":"` + info.RustName + `","vanilla_proofs":{"` + info.ShapeName + `":[[{"comm_d_proofs":{"data":{"Single":{"root":`,
			`"comm_r_last_proof":{"data":{"`, `"replica_column_proofs":{"c_x":{"column":{"index":`, `"_h":null},"inclusion_proof":`,
			`,"drg_parents":[`, `,"exp_parents":[`, `"labeling_proofs":[{"parents":[[`, `"layer_index":1,"node":`, `"encoding_proof":{"parents":`,
			`]]},"comm_r":[`, `,"comm_d":[`, `,"replica_id":[`, `,"seed":[`, `,"ticket":[`} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: encoding lacks %s", info.RustName, want)
			}
		}
		// encoding/json must accept our output as JSON.
		if !json.Valid(enc) {
			t.Errorf("%s: invalid JSON", info.RustName)
		}
	}
}

func TestC1AcceptsWhitespaceAndFieldOrder(t *testing.T) {
	info := seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	c := syntheticC1(info, 3)
	enc := EncodeC1(c)
	var generic map[string]any
	if err := json.Unmarshal(enc, &generic); err != nil {
		t.Fatal(err)
	}
	// encoding/json writes the keys sorted and indented: another order, with whitespace.
	other, err := json.MarshalIndent(generic, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := DecodeC1(other)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(EncodeC1(dec), enc) {
		t.Fatal("decoding a reordered, indented copy gives a different value")
	}
}

func TestC1RejectsBadInput(t *testing.T) {
	info := seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	good := string(EncodeC1(syntheticC1(info, 4)))
	cases := map[string]string{
		"trailing":      good + "x",
		"unknown field": strings.Replace(good, `"seed":`, `"sed":`, 1),
		"duplicate":     strings.Replace(good, `"seed":`, `"ticket":`, 1),
		"missing":       strings.Replace(good, `,"ticket":[`, `,"ticket_":[`, 1),
		"byte > 255":    strings.Replace(good, `"comm_r":[`, `"comm_r":[256,`, 1),
		"short domain":  strings.Replace(good, `"comm_r":[`, `"comm_r":[]`+",", 1),
		"negative":      strings.Replace(good, `"layer_index":1`, `"layer_index":-1`, 1),
		"leading zero":  strings.Replace(good, `"layer_index":1`, `"layer_index":01`, 1),
		"bad variant":   strings.Replace(good, `{"Single":`, `{"Double":`, 1),
		"bad shape key": strings.Replace(good, `"StackedDrg2KiBV1":`, `"StackedDrg4KiBV1":`, 1),
		"_h not null":   strings.Replace(good, `"_h":null`, `"_h":0`, 1),
		"empty":         "",
		"escape":        strings.Replace(good, `"seed"`, `"se\u0065d"`, 1),
	}
	for name, in := range cases {
		if _, err := DecodeC1([]byte(in)); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrLimit) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	step := 97
	if testing.Short() { // every prefix is a full partial parse; sample fewer in -short
		step = 1009
	}
	for n := 0; n < len(good); n += step {
		if _, err := DecodeC1([]byte(good[:n])); err == nil {
			t.Fatalf("prefix of %d bytes accepted", n)
		}
	}
}

func TestC1LimitsBeforeAllocation(t *testing.T) {
	lim := DefaultLimits()
	lim.Partitions = 1
	info := seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_2_Feat_NiPoRep) // 13 partitions
	if _, err := DecodeC1WithLimits(EncodeC1(syntheticC1(info, 5)), lim); !errors.Is(err, ErrLimit) {
		t.Fatalf("13 partitions with limit 1: %v", err)
	}
	// 19 challenges in a partition exceed every proof type.
	c := syntheticC1(seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1), 6)
	for len(c.VanillaProofs[0]) < 19 {
		c.VanillaProofs[0] = append(c.VanillaProofs[0], c.VanillaProofs[0][0])
	}
	if _, err := DecodeC1(EncodeC1(c)); !errors.Is(err, ErrLimit) {
		t.Fatalf("19 challenges: %v", err)
	}
}

func TestC1ValidateShape(t *testing.T) {
	info := seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	mutations := map[string]func(c *SealCommitPhase1Output){
		"unknown proof": func(c *SealCommitPhase1Output) { c.RegisteredProof = "StackedDrg2KiBV9" },
		"shape key":     func(c *SealCommitPhase1Output) { c.ShapeName = "StackedDrg8MiBV1" },
		"partitions":    func(c *SealCommitPhase1Output) { c.VanillaProofs = append(c.VanillaProofs, c.VanillaProofs[0]) },
		"challenges":    func(c *SealCommitPhase1Output) { c.VanillaProofs[0] = c.VanillaProofs[0][:1] },
		"tree d depth":  func(c *SealCommitPhase1Output) { p := &c.VanillaProofs[0][0].CommDProofs; p.Base = p.Base[1:] },
		"tree r kind":   func(c *SealCommitPhase1Output) { c.VanillaProofs[0][1].CommRLastProof.Kind = ProofSub },
		"path index":    func(c *SealCommitPhase1Output) { c.VanillaProofs[0][0].CommRLastProof.Base[0].Index = 8 },
		"column rows": func(c *SealCommitPhase1Output) {
			x := &c.VanillaProofs[0][0].ReplicaColumnProofs.CX
			x.Rows = x.Rows[:1]
		},
		"drg parents": func(c *SealCommitPhase1Output) {
			x := &c.VanillaProofs[0][0].ReplicaColumnProofs
			x.DrgParents = x.DrgParents[:5]
		},
		"labeling count": func(c *SealCommitPhase1Output) { x := &c.VanillaProofs[0][0]; x.LabelingProofs = x.LabelingProofs[:1] },
		"parents":        func(c *SealCommitPhase1Output) { x := &c.VanillaProofs[0][0].EncodingProof; x.Parents = x.Parents[:14] },
		"layer index":    func(c *SealCommitPhase1Output) { c.VanillaProofs[0][0].LabelingProofs[1].LayerIndex = 1 },
	}
	for name, mutate := range mutations {
		c := syntheticC1(info, 7)
		mutate(c)
		if _, err := c.Validate(); !errors.Is(err, ErrShape) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := syntheticC1(info, 7).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestTreeDepths(t *testing.T) {
	cases := []struct {
		size        uint64
		kind        ProofKind
		base, treeD int
	}{
		{types.SectorSize2KiB, ProofSingle, 2, 6},
		{types.SectorSize8MiB, ProofSingle, 6, 18},
		{types.SectorSize512MiB, ProofSingle, 8, 24},
		{types.SectorSize32GiB, ProofSub, 9, 30},
		{types.SectorSize64GiB, ProofTop, 9, 31},
	}
	for _, c := range cases {
		shape, err := types.SectorShapeOf(c.size)
		if err != nil {
			t.Fatal(err)
		}
		r, d := TreeRDepth(shape), TreeDDepth(shape)
		if r.Kind != c.kind || r.BaseLevels != c.base || d.BaseLevels != c.treeD || d.Kind != ProofSingle {
			t.Errorf("%d: tree R %+v, tree D %+v", c.size, r, d)
		}
	}
}

func TestCommit2InRoundTrip(t *testing.T) {
	info := seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1)
	c1 := EncodeC1(syntheticC1(info, 8))
	w := &Commit2In{SectorNum: 9, Phase1Out: c1, SectorSize: 2048}
	enc, err := EncodeCommit2In(w)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(enc), `{"SectorNum":9,"Phase1Out":"eyJyZWdpc3RlcmVkX3Byb29mIjoi`) || !strings.HasSuffix(string(enc), `","SectorSize":2048}`) {
		t.Errorf("wrapper layout: %.80s…", enc)
	}
	back, err := DecodeCommit2In(enc)
	if err != nil || back.SectorNum != 9 || back.SectorSize != 2048 || !bytes.Equal(back.Phase1Out, c1) {
		t.Fatalf("round trip: %v", err)
	}
	for _, bad := range []string{`{"SectorNum":9,"SectorSize":2048}`, `{"SectorNum":9,"Phase1Out":"AA==","SectorSize":2048,"X":1}`,
		`{"SectorNum":9,"Phase1Out":"!!","SectorSize":2048}`, `{"SectorNum":9,"Phase1Out":"AA==","SectorSize":2048} {}`, `[]`} {
		if _, err := DecodeCommit2In([]byte(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}

// TestC1TypeLimitsApplyWhileReading: a 2 KiB V1_1 output declaring two partitions is refused
// by the decoder itself (limit 1 from the declared type), not only by Validate.
func TestC1TypeLimitsApplyWhileReading(t *testing.T) {
	c := syntheticC1(seal(t, abi.RegisteredSealProof_StackedDrg2KiBV1_1), 9)
	c.VanillaProofs = append(c.VanillaProofs, c.VanillaProofs[0])
	if _, err := DecodeC1(EncodeC1(c)); !errors.Is(err, ErrLimit) {
		t.Fatalf("2 partitions for a 1-partition type: %v", err)
	}
	lim := SealLimits(seal(t, abi.RegisteredSealProof_StackedDrg64GiBV1_1))
	if lim.Partitions != 10 || lim.ChallengesPerPartition != 18 || lim.Layers != 11 || lim.PathElements != 31 {
		t.Errorf("64 GiB limits %+v", lim)
	}
}
