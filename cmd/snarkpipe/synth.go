package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/sealer"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

var synthCmd = &cli.Command{
	Name:  "synth",
	Usage: "generate a synthetic full-shape C1 output or PoSt vanilla proofs (deterministic from a seed), verified natively",
	Description: "--kind c1 writes the C1 JSON to FILE and {Miner, Number} to FILE.sector.json; it supports interactive\n" +
		"seal proofs only (V1, V1_1). --kind winning|window writes bincode Vec<FallbackPoStSectorProof> to FILE and\n" +
		"Curio's postpub.json (randomness, proof type, sectors) to FILE.postpub.json; window fills one whole partition.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "kind", Required: true, Usage: "c1, winning or window"},
		&cli.StringFlag{Name: "proof", Required: true, Usage: "registered proof name, e.g. StackedDrg32GiBV1_1 or StackedDrgWindow32GiBV1_2"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of every generated value"},
		&cli.StringFlag{Name: "out", Required: true, Usage: "output file"},
	},
	Action: func(c *cli.Context) error {
		return runSynth(c.App.Writer, c.String("kind"), c.String("proof"), c.Uint64("seed"), c.String("out"))
	},
}

func runSynth(w io.Writer, kind, proof string, seed uint64, out string) error {
	switch kind {
	case "c1":
		return synthC1(w, proof, seed, out)
	case "winning", "window":
		return synthPoSt(w, kind, proof, seed, out)
	}
	return fmt.Errorf("synth: --kind must be c1, winning or window, got %q", kind)
}

func synthC1(w io.Writer, proof string, seed uint64, out string) error {
	info, err := types.SealProofByRustName(proof)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	start := time.Now()
	c1, sid, err := refseal.SynthC1(info, seed)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	gen := time.Since(start)
	start = time.Now()
	if _, err := sealer.VerifyC1(c1, &sid); err != nil {
		return fmt.Errorf("synth: generated C1 does not verify (bug): %w", err)
	}
	ver := time.Since(start)
	data := vanilla.EncodeC1(c1)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	if err := writeJSON(out+".sector.json", sid); err != nil {
		return err
	}
	fmt.Fprintf(w, "synth c1 %s seed %d: %d partitions × %d challenges, %d bytes, generated %.2fs, verified %.2fs → %s\n",
		info.RustName, seed, len(c1.VanillaProofs), len(c1.VanillaProofs[0]), len(data), gen.Seconds(), ver.Seconds(), out)
	return nil
}

func postProofByName(name string) (*types.PoStProofInfo, error) {
	for _, p := range types.PoStProofs() {
		if p.RustName == name {
			return types.PoStProof(p.ID)
		}
	}
	return nil, fmt.Errorf("unknown PoSt proof name %q", name)
}

func synthPoSt(w io.Writer, kind, proof string, seed uint64, out string) error {
	info, err := postProofByName(proof)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if (kind == "winning") != (info.Kind == types.PoStWinning) {
		return fmt.Errorf("synth: --kind %s does not match %s (a %s PoSt)", kind, info.RustName, info.Kind)
	}
	start := time.Now()
	sp, err := refseal.SynthPoStProofs(info, seed)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	gen := time.Since(start)
	pub := &sealer.PoStPublic{Proof: info, Randomness: sp.Randomness}
	numbers := make([]abi.SectorNumber, len(sp.Sectors))
	commRs := make([]types.Commitment, len(sp.Sectors))
	for i, s := range sp.Sectors {
		pub.Sectors = append(pub.Sectors, sealer.PoStSector{Number: s.Number, CommR: s.CommR})
		numbers[i], commRs[i] = s.Number, s.CommR
	}
	start = time.Now()
	if err := sealer.VerifyPoSt(pub, sp.Proofs); err != nil {
		return fmt.Errorf("synth: generated PoSt does not verify (bug): %w", err)
	}
	ver := time.Since(start)
	data := encodePoStList(sp.Proofs)
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	pp, err := newPostPub(info, sp.Randomness, sp.Miner, numbers, commRs)
	if err != nil {
		return err
	}
	if err := writeJSON(out+".postpub.json", pp); err != nil {
		return err
	}
	fmt.Fprintf(w, "synth %s %s seed %d: %d sectors × %d challenges, %d bytes, generated %.2fs, verified %.2fs → %s\n",
		kind, info.RustName, seed, len(sp.Proofs), info.ChallengesPerSector, len(data), gen.Seconds(), ver.Seconds(), out)
	return nil
}
