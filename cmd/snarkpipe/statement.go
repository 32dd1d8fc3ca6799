package main

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/sealer/porep"
	"github.com/snarkpipe/snarkpipe/sealer/post"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// statement is what one proof (all its partitions) is about: the circuit shape, the
// public inputs of every partition and, for proving, the partition circuits.
type statement struct {
	blank    prover.Circuit   // records the shape (and names the parameters)
	circuits []prover.Circuit // one per partition; nil when only verifying
	inputs   [][]fr.Element   // one per partition, ONE excluded
}

// c2Statement reads a C1 output (raw JSON, or the Commit2In wrapper lotus sends) and
// returns its statement; the partition circuits only when withCircuits.
func c2Statement(path string, withCircuits bool) (*statement, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c1, err := vanilla.DecodeC1(data)
	if err != nil {
		w, werr := vanilla.DecodeCommit2In(data)
		if werr != nil {
			return nil, fmt.Errorf("%s: not a C1 output (%v) nor a Commit2In (%v)", path, err, werr)
		}
		if c1, err = vanilla.DecodeC1(w.Phase1Out); err != nil {
			return nil, fmt.Errorf("%s: Commit2In phase-1 output: %w", path, err)
		}
	}
	info, err := c1.Validate()
	if err != nil {
		return nil, err
	}
	if !info.Provable {
		return nil, fmt.Errorf("%s proofs are not produced by snarkpipe (NI-PoRep needs a SnarkPack aggregate)", info.RustName)
	}
	blank, err := porep.Blank(porep.ConfigFor(info))
	if err != nil {
		return nil, err
	}
	st := &statement{blank: blank}
	for k := range info.PartitionCount {
		in, err := porep.SealPublicInputs(info, c1.ReplicaID, c1.CommD, c1.CommR, c1.Seed, k)
		if err != nil {
			return nil, err
		}
		st.inputs = append(st.inputs, in)
		if withCircuits {
			c, err := porep.FromC1(c1, k)
			if err != nil {
				return nil, err
			}
			st.circuits = append(st.circuits, c)
		}
	}
	return st, nil
}

// postInfo finds a PoSt proof type by id or upstream name and checks its kind.
func postInfo(kind, name string) (*types.PoStProofInfo, error) {
	var info *types.PoStProofInfo
	if id, err := strconv.Atoi(name); err == nil {
		if info, err = types.PoStProof(abi.RegisteredPoStProof(id)); err != nil {
			return nil, err
		}
	} else {
		for _, p := range types.PoStProofs() {
			if p.RustName == name {
				info = &p
				break
			}
		}
		if info == nil {
			return nil, fmt.Errorf("unknown PoSt proof %q", name)
		}
	}
	if want := map[string]types.PoStKind{"winning": types.PoStWinning, "window": types.PoStWindow}[kind]; info.Kind != want {
		return nil, fmt.Errorf("%s is a %s proof, not %s", info.RustName, info.Kind, kind)
	}
	return info, nil
}

// parseRandomness reads the 32-byte PoSt randomness and clears the top two bits, as lotus
// does before handing chain randomness to the prover (upstream requires a canonical field
// element). It takes hex (what `seal` prints and writes in sector.json, with or without
// 0x) or standard base64 (how Curio's postpub.json, and so seal's, stores it).
func parseRandomness(s string) ([32]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		b, err = base64.StdEncoding.DecodeString(s)
	}
	if err != nil || len(b) != 32 {
		return [32]byte{}, &randomnessError{value: s}
	}
	return types.MaskFr([32]byte(b)), nil
}

// randomnessError is a --randomness that is not 32 bytes of hex or base64.
type randomnessError struct{ value string }

func (e *randomnessError) Error() string {
	return fmt.Sprintf("--randomness must be 32 bytes as 64 hex digits (or base64, as in a postpub.json), got %q", e.value)
}

// readPoStVanilla reads vanilla sector proofs: each file is one bincode
// FallbackPoStSectorProof or a bincode list of them.
func readPoStVanilla(paths []string) ([]*vanilla.FallbackPoStSectorProof, error) {
	if len(paths) == 0 {
		return nil, errors.New("at least one --vanilla file is needed")
	}
	var out []*vanilla.FallbackPoStSectorProof
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if one, err := vanilla.DecodePoStSectorProof(data); err == nil {
			out = append(out, one)
			continue
		}
		list, err := vanilla.DecodePoStSectorProofList(data)
		if err != nil {
			return nil, fmt.Errorf("%s: not a PoSt vanilla proof nor a list of them: %w", p, err)
		}
		out = append(out, list...)
	}
	return out, nil
}

// postStatement builds the statement of a Winning or Window PoSt over the sectors of the
// vanilla proofs, in file order.
func postStatement(kind, proofName, randomness string, vanillaPaths []string, withCircuits bool) (*statement, error) {
	info, err := postInfo(kind, proofName)
	if err != nil {
		return nil, err
	}
	rnd, err := parseRandomness(randomness)
	if err != nil {
		return nil, err
	}
	proofs, err := readPoStVanilla(vanillaPaths)
	if err != nil {
		return nil, err
	}
	sectors := make([]post.PublicSector, len(proofs))
	for i, p := range proofs {
		sectors[i] = post.PublicSector{ID: p.SectorID, CommR: p.CommR}
	}
	blank, err := post.Blank(post.ConfigFor(info))
	if err != nil {
		return nil, err
	}
	st := &statement{blank: blank}
	n := post.Partitions(info, len(sectors))
	for k := range n {
		in, err := post.PublicInputs(info, rnd, sectors, k)
		if err != nil {
			return nil, err
		}
		st.inputs = append(st.inputs, in)
		if withCircuits {
			c, err := post.FromVanilla(info, proofs, k)
			if err != nil {
				return nil, err
			}
			st.circuits = append(st.circuits, c)
		}
	}
	return st, nil
}
