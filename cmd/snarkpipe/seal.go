package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

var sealCmd = &cli.Command{
	Name:  "seal",
	Usage: "seal a small sector with the reference sealer and write its C1 output and PoSt vanilla proofs",
	Description: "Writes to DIR: unsealed, sealed (the replica), sector.json (ids and commitments), c1.json (C1 output),\n" +
		"commit2in.json (lotus-bench Commit2In wrapper), and for each PoSt type of the size <name>.vproof (bincode\n" +
		"FallbackPoStSectorProof) with <name>.postpub.json (Curio's verify info). Everything is verified natively.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "size", Required: true, Usage: "2KiB or 8MiB"},
		&cli.StringFlag{Name: "version", Value: "V1_1", Usage: "seal proof version: V1, V1_1, Synthetic or NI"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the data, ticket, PoRep seed and PoSt randomness"},
		&cli.Uint64Flag{Name: "miner", Value: 1000, Usage: "miner actor id"},
		&cli.Uint64Flag{Name: "sector", Value: 1, Usage: "sector number"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "output directory (created)"},
	},
	Action: func(c *cli.Context) error {
		id := abi.SectorID{Miner: abi.ActorID(c.Uint64("miner")), Number: abi.SectorNumber(c.Uint64("sector"))}
		return runSeal(c.App.Writer, c.String("size"), c.String("version"), c.Uint64("seed"), id, c.String("out"))
	},
}

// sealVersions maps --version to the registered-proof name suffix.
var sealVersions = map[string]string{"V1": "V1", "V1_1": "V1_1", "Synthetic": "V1_1_Feat_SyntheticPoRep", "NI": "V1_2_Feat_NonInteractivePoRep"}

func sealProofFor(size, version string) (*types.SealProofInfo, error) {
	if size != "2KiB" && size != "8MiB" {
		return nil, fmt.Errorf("seal: --size must be 2KiB or 8MiB (larger sectors: use synth), got %q", size)
	}
	suffix, ok := sealVersions[version]
	if !ok {
		return nil, fmt.Errorf("seal: --version must be V1, V1_1, Synthetic or NI, got %q", version)
	}
	return types.SealProofByRustName("StackedDrg" + size + suffix)
}

// seeded derives a 32-byte value for one purpose from the command's seed.
func seeded(seed uint64, purpose string) [32]byte { return seededN(seed, 0, purpose) }

func seededN(seed, n uint64, purpose string) [32]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	binary.LittleEndian.PutUint64(b[8:], n)
	return sha256.Sum256(append([]byte("snarkpipe seal "+purpose), b[:]...))
}

// seededData is fr32-padded pseudo-random data: SHA-256 in counter mode, top bits cleared.
func seededData(seed uint64, size uint64) []byte {
	out := make([]byte, 0, size)
	for i := uint64(0); uint64(len(out)) < size; i++ {
		block := seededN(seed, i, "data")
		block[31] &= 0x3f
		out = append(out, block[:]...)
	}
	return out
}

func runSeal(w io.Writer, size, version string, seed uint64, id abi.SectorID, dir string) error {
	info, err := sealProofFor(size, version)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	data := seededData(seed, info.SectorSize)
	s, err := refseal.Seal(info, id, types.MaskFr(seeded(seed, "ticket")), data)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "sealed %s sector %d of miner %d in %.2fs: comm_d %x comm_r %x\n", info.RustName, id.Number, id.Miner, time.Since(start).Seconds(), s.CommD, s.CommR)
	c1, err := s.C1(seeded(seed, "porep seed"))
	if err != nil {
		return err
	}
	if _, err := sealer.VerifyC1(c1, &id); err != nil {
		return fmt.Errorf("seal: C1 output does not verify (bug): %w", err)
	}
	c1JSON := vanilla.EncodeC1(c1)
	wrapper, err := vanilla.EncodeCommit2In(&vanilla.Commit2In{SectorNum: int64(id.Number), Phase1Out: c1JSON, SectorSize: info.SectorSize})
	if err != nil {
		return err
	}
	files := map[string][]byte{"unsealed": data, "sealed": s.Replica(), "c1.json": c1JSON, "commit2in.json": wrapper}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	randomness := seeded(seed, "post randomness")
	if err := writeSectorJSON(filepath.Join(dir, "sector.json"), s, randomness); err != nil {
		return err
	}
	if err := writeSealPoSt(w, s, randomness, dir); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (C1: %d partitions × %d challenges, verified)\n", dir, len(c1.VanillaProofs), len(c1.VanillaProofs[0]))
	printSealNextSteps(w, s.Info, randomness, dir)
	return nil
}

// printSealNextSteps shows the prove commands for what seal wrote, with the PoSt
// randomness in the hex that --randomness takes.
func printSealNextSteps(w io.Writer, info *types.SealProofInfo, randomness [32]byte, dir string) {
	fmt.Fprintf(w, "PoSt randomness (hex, also in sector.json): %x\n", randomness)
	fmt.Fprintf(w, "prove with:\n  snarkpipe prove c2 --c1 %s --out c2.proof\n", filepath.Join(dir, "c1.json"))
	for _, p := range types.PoStProofs() {
		if p.SectorSize != info.SectorSize || !p.Provable || (p.Kind == types.PoStWindow && p.APIVersion != types.APIVersion1_2_0) {
			continue
		}
		fmt.Fprintf(w, "  snarkpipe prove %s --post-proof %s --randomness %x --vanilla %s --out %s.proof\n",
			strings.ToLower(p.Kind.String()), p.RustName, randomness, filepath.Join(dir, strings.ToLower(p.RustName)+".vproof"), strings.ToLower(p.Kind.String()))
	}
}

// writeSectorJSON writes the sector's ids and commitments, and the PoSt randomness the
// vanilla proofs answer, in hex as --randomness takes it.
func writeSectorJSON(path string, s *refseal.Sector, randomness [32]byte) error {
	commR, err := types.CommRToCID(types.Commitment(s.CommR))
	if err != nil {
		return err
	}
	commD, err := types.CommDToCID(types.Commitment(s.CommD))
	if err != nil {
		return err
	}
	return writeJSON(path, map[string]any{
		"SealProof": s.Info.ID, "RegisteredProof": s.Info.RustName, "Miner": s.ID.Miner, "Number": s.ID.Number,
		"Ticket": hex.EncodeToString(s.Ticket[:]), "ReplicaID": hex.EncodeToString(s.ReplicaID[:]),
		"CommD": commD, "CommR": commR, "CommC": hex.EncodeToString(s.CommC[:]), "CommRLast": hex.EncodeToString(s.CommRLast[:]),
		"PoStRandomness": hex.EncodeToString(randomness[:]),
	})
}

// writeSealPoSt writes a verified vanilla proof of the sector for every PoSt type of its size.
func writeSealPoSt(w io.Writer, s *refseal.Sector, randomness [32]byte, dir string) error {
	for _, p := range types.PoStProofs() {
		if p.SectorSize != s.Info.SectorSize {
			continue
		}
		info, _ := types.PoStProof(p.ID)
		v, err := s.PoStReplica().Vanilla(info, randomness[:], 0)
		if err != nil {
			return err
		}
		pub := &sealer.PoStPublic{Proof: info, Randomness: randomness[:], Sectors: []sealer.PoStSector{{Number: s.ID.Number, CommR: types.Commitment(s.CommR)}}}
		if err := sealer.VerifyPoSt(pub, []*vanilla.FallbackPoStSectorProof{v}); err != nil {
			return fmt.Errorf("seal: %s vanilla proof does not verify (bug): %w", info.RustName, err)
		}
		base := filepath.Join(dir, strings.ToLower(info.RustName))
		if err := os.WriteFile(base+".vproof", vanilla.EncodePoStSectorProof(v), 0o644); err != nil {
			return err
		}
		pp, err := newPostPub(info, randomness[:], s.ID.Miner, []abi.SectorNumber{s.ID.Number}, []types.Commitment{types.Commitment(s.CommR)})
		if err != nil {
			return err
		}
		if err := writeJSON(base+".postpub.json", pp); err != nil {
			return err
		}
	}
	return nil
}
