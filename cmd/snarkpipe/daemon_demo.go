package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
	"github.com/snarkpipe/snarkpipe/sealer/refseal"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// applyDemoDefaults makes the embedded demo self-contained: dev parameters, free ports,
// quiet logs, and a memory margin small enough for a 2-core CI runner.
func applyDemoDefaults(cfg *daemonConfig, listenSet bool) {
	cfg.Dev = true
	if !listenSet {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.MetricsListen = "127.0.0.1:0"
	cfg.LogLevel = "warn"
	cfg.Pipeline.SafetyMargin = 1 << 30
}

// demoInputs are the built-in 2 KiB sector's C1 output and PoSt vanilla proofs, made by
// the reference sealer from fixed data, ticket, seed and randomness.
type demoInputs struct {
	sector     abi.SectorID
	commR      string // CID
	c1         []byte
	randomness []byte
	winning    []byte
	window     []byte
}

const demoSealProof = abi.RegisteredSealProof_StackedDrg2KiBV1_1

func makeDemoInputs() (*demoInputs, error) {
	info, err := types.SealProof(demoSealProof)
	if err != nil {
		return nil, err
	}
	data := make([]byte, info.SectorSize)
	for i := range data {
		data[i] = byte(i*13 + 7)
	}
	for i := 31; i < len(data); i += 32 {
		data[i] &= 0x3f // fr32 padding
	}
	in := &demoInputs{sector: abi.SectorID{Miner: 1000, Number: 1}, randomness: make([]byte, 32)}
	s, err := refseal.Seal(info, in.sector, [32]byte{0x5e, 0xa1}, data)
	if err != nil {
		return nil, err
	}
	c1, err := s.C1([32]byte{0x5e, 0xed})
	if err != nil {
		return nil, err
	}
	in.c1 = vanilla.EncodeC1(c1)
	commR, err := types.CommRToCID(types.Commitment(s.CommR))
	if err != nil {
		return nil, err
	}
	in.commR = commR.String()
	for i := range in.randomness {
		in.randomness[i] = byte(i * 11)
	}
	for _, pt := range []abi.RegisteredPoStProof{abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1} {
		pinfo, err := types.PoStProof(pt)
		if err != nil {
			return nil, err
		}
		v, err := s.PoStReplica().Vanilla(pinfo, in.randomness, 0)
		if err != nil {
			return nil, err
		}
		if pinfo.Kind == types.PoStWinning {
			in.winning = vanilla.EncodePoStSectorProof(v)
		} else {
			in.window = vanilla.EncodePoStSectorProof(v)
		}
	}
	return in, nil
}

// demoRow is one line of the timing table.
type demoRow struct {
	name  string
	wall  time.Duration
	bytes int
	job   api.JobInfo
}

// runDemo2KiB proves the built-in sector's C2, Winning and Window PoSt through the
// JSON-RPC API of the daemon at url and prints a timing table. The first run also makes
// the dev parameters (cached afterwards).
func runDemo2KiB(ctx context.Context, w io.Writer, url string, secret []byte) error {
	t0 := time.Now()
	in, err := makeDemoInputs()
	if err != nil {
		return fmt.Errorf("demo inputs: %w", err)
	}
	fmt.Fprintf(w, "demo: sealed the built-in 2 KiB sector %d of miner f0%d (CommR %s) and made its C1 output and PoSt vanilla proofs in %v\n",
		in.sector.Number, in.sector.Miner, in.commR, time.Since(t0).Round(time.Millisecond))
	tok, err := rpc.NewToken(secret, api.PermWrite)
	if err != nil {
		return err
	}
	c, closer, err := client.New(ctx, url, tok)
	if err != nil {
		return err
	}
	defer closer()
	var rows []demoRow
	winning := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, Miner: in.sector.Miner, Randomness: in.randomness, VanillaProofs: [][]byte{in.winning}}
	window := api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWindow2KiBV1_1, Miner: in.sector.Miner, Randomness: in.randomness, VanillaProofs: [][]byte{in.window}}
	steps := []struct {
		name string
		call func() (int, api.JobInfo, error)
	}{
		{"WindowPoSt 2KiB", func() (int, api.JobInfo, error) {
			r, err := c.GenerateWindowPoStWithVanilla(ctx, window)
			if err != nil {
				return 0, api.JobInfo{}, err
			}
			return len(r.Proofs[0].ProofBytes), r.Job, nil
		}},
		{"WinningPoSt 2KiB", func() (int, api.JobInfo, error) {
			r, err := c.GenerateWinningPoStWithVanilla(ctx, winning)
			if err != nil {
				return 0, api.JobInfo{}, err
			}
			return len(r.Proofs[0].ProofBytes), r.Job, nil
		}},
		{"SealCommit2 2KiB", func() (int, api.JobInfo, error) {
			r, err := c.SealCommit2(ctx, api.SealCommit2Request{Sector: in.sector, ProofType: demoSealProof, C1: in.c1})
			if err != nil {
				return 0, api.JobInfo{}, err
			}
			return len(r.Proof), r.Job, nil
		}},
	}
	for _, s := range steps {
		fmt.Fprintf(w, "demo: %s ...\n", s.name)
		start := time.Now()
		n, job, err := s.call()
		if err != nil {
			return fmt.Errorf("demo: %s: %w", s.name, err)
		}
		rows = append(rows, demoRow{name: s.name, wall: time.Since(start), bytes: n, job: job})
	}
	printDemoTable(w, rows)
	fmt.Fprintf(w, "demo: sector %d of miner f0%d (%s, CommR %s): SealCommit2, Winning and Window PoSt proved and verified through the JSON-RPC API in %v\n",
		in.sector.Number, in.sector.Miner, demoSealProofName(), in.commR, time.Since(t0).Round(time.Millisecond))
	fmt.Fprintln(w, "demo: dev parameters (proofs valid for this demo only, not on chain); a first run also makes them, later runs reuse them")
	return nil
}

func demoSealProofName() string {
	info, err := types.SealProof(demoSealProof)
	if err != nil {
		return fmt.Sprint(demoSealProof)
	}
	return info.RustName
}

func printDemoTable(w io.Writer, rows []demoRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "proof\tbytes\twall\tload\twitness\tprove\tverify\t")
	for _, r := range rows {
		var t api.StageTiming
		for _, p := range r.job.Timings {
			t.Load += p.Load
			t.Witness += p.Witness
			t.Prove += p.Prove
			t.Verify += p.Verify
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.name, r.bytes, secs(r.wall), secs(t.Load), secs(t.Witness), secs(t.Prove), secs(t.Verify))
	}
	tw.Flush()
	fmt.Fprintln(w, "  load: recording the circuit and loading parameters (first use); witness: witness fill and A·z, B·z, C·z")
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }
