package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/urfave/cli/v2"

	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
	"github.com/snarkpipe/snarkpipe/types"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// daemonProveFlags turn `snarkpipe prove` into a client of a running daemon.
var daemonProveFlags = []cli.Flag{
	&cli.StringFlag{Name: "daemon", Usage: "prove on a running daemon at this address (http://host:port) instead of in-process"},
	&cli.StringFlag{Name: "token", Usage: "API token with write permission (default: $SNARKPIPE_API_TOKEN)", EnvVars: []string{"SNARKPIPE_API_TOKEN"}},
	&cli.Uint64Flag{Name: "miner", Usage: "with --daemon: the miner's actor id (enters prover_id)"},
	&cli.Uint64Flag{Name: "sector", Usage: "with --daemon, c2: the sector number (default: the Commit2In wrapper's SectorNum)"},
	&cli.IntFlag{Name: "partition", Usage: "with --daemon, window: the partition index of the vanilla proofs"},
}

// proveViaDaemon sends the prove request to a daemon's API, waits for the verified proof
// and writes it to --out.
func proveViaDaemon(c *cli.Context, kind string) error {
	if !c.IsSet("miner") {
		return errors.New("--miner is required with --daemon")
	}
	cl, closer, err := client.New(c.Context, c.String("daemon"), c.String("token"))
	if err != nil {
		return err
	}
	defer closer()
	miner := abi.ActorID(c.Uint64("miner"))
	var proof []byte
	var job api.JobInfo
	switch kind {
	case "c2":
		req, err := c2RequestOf(c.String("c1"), miner, c)
		if err != nil {
			return err
		}
		r, err := cl.SealCommit2(c.Context, *req)
		if err != nil {
			return explainCallError(err, daemonTarget{}, api.PermWrite)
		}
		proof, job = r.Proof, r.Job
	default:
		info, err := postInfo(kind, c.String("post-proof"))
		if err != nil {
			return err
		}
		rnd, err := parseRandomness(c.String("randomness"))
		if err != nil {
			return err
		}
		proofs, err := readPoStVanilla(c.StringSlice("vanilla"))
		if err != nil {
			return err
		}
		req := api.PoStRequest{ProofType: info.ID, Miner: miner, Randomness: rnd[:], Partition: c.Int("partition")}
		for _, p := range proofs {
			req.VanillaProofs = append(req.VanillaProofs, vanilla.EncodePoStSectorProof(p))
		}
		call := cl.GenerateWinningPoStWithVanilla
		if kind == "window" {
			call = cl.GenerateWindowPoStWithVanilla
		}
		r, err := call(c.Context, req)
		if err != nil {
			return explainCallError(err, daemonTarget{}, api.PermWrite)
		}
		for _, p := range r.Proofs {
			proof = append(proof, p.ProofBytes...)
		}
		job = r.Job
	}
	if err := os.WriteFile(c.String("out"), proof, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "%s: %d bytes from %s (job %s, verified by the daemon) → %s\n", job.ProofType, len(proof), c.String("daemon"), job.ID, c.String("out"))
	return nil
}

// c2RequestOf reads a C1 output (raw JSON or the Commit2In wrapper) into a request.
func c2RequestOf(path string, miner abi.ActorID, c *cli.Context) (*api.SealCommit2Request, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sector := abi.SectorNumber(c.Uint64("sector"))
	if w, err := vanilla.DecodeCommit2In(data); err == nil {
		data = w.Phase1Out
		if !c.IsSet("sector") {
			sector = abi.SectorNumber(w.SectorNum)
		}
	} else if !c.IsSet("sector") {
		return nil, errors.New("--sector is required with a bare C1 output")
	}
	c1, err := vanilla.DecodeC1(data)
	if err != nil {
		return nil, err
	}
	info, err := types.SealProofByRustName(c1.RegisteredProof)
	if err != nil {
		return nil, err
	}
	return &api.SealCommit2Request{Sector: abi.SectorID{Miner: miner, Number: sector}, ProofType: info.ID, C1: data}, nil
}
