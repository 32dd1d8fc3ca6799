package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/rpc"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/rpc/client"
	"github.com/snarkpipe/snarkpipe/types"
)

// TestBenchWriteParamsDaemonLoads: `bench winning --write-params DIR` writes the 2 KiB
// Winning PoSt key under its official names as a dev pair (no .part left; .vk equal to
// the .params' own); a daemon on DIR with allow_dev_params proves a Winning PoSt through
// the API with it, verified against that .vk. Its preload then refuses, with code
// unavailable and a message naming the file, a foreign .vk, one flipped byte in the H
// vector and a truncated .params, and loads the restored pair again.
func TestBenchWriteParamsDaemonLoads(t *testing.T) {
	dir := t.TempDir()
	if out, err := runBenchCmd(t, "winning", "--size", "2KiB", "--proofs", "1", "--write-params", dir); err != nil ||
		!strings.Contains(out, "proofs verified       1 of 1") || !strings.Contains(out, "wrote ") {
		t.Fatalf("bench --write-params: %v\n%s", err, out)
	}
	info, err := types.PoStProof(abi.RegisteredPoStProof_StackedDrgWinning2KiBV1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, info.ParamFileName("params"))
	p, err := groth16.ReadParams(path, groth16.ReadOptions{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	vk, err := groth16.ReadVerifyingKeyFile(srs.VKPath(path))
	if err != nil || !vk.Equal(&p.VK) || !p.Dev {
		t.Fatalf("written pair: .vk %v, equal %v, dev %v", err, err == nil && vk.Equal(&p.VK), p.Dev)
	}
	hAt := int64(3*96+3*192+4+len(p.VK.IC)*96+4) + 96*3 + 30 // h[3]'s x coordinate
	p.Close()
	if m, _ := filepath.Glob(filepath.Join(dir, "*.part")); len(m) != 0 {
		t.Fatalf("left behind: %v", m)
	}

	cfg := testDaemonConfig(t)
	cfg.Dev, cfg.AllowDevParams, cfg.ParamDir = false, true, dir
	d, err := startDaemon(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.shutdown(time.Minute)
	tok, _ := rpc.NewToken(d.secret, api.PermAdmin)
	c, closer, err := client.New(context.Background(), "http://"+d.apiAddr.String(), tok)
	if err != nil {
		t.Fatal(err)
	}
	defer closer()
	in, err := makeDemoInputs()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := c.GenerateWinningPoStWithVanilla(ctx, api.PoStRequest{ProofType: abi.RegisteredPoStProof_StackedDrgWinning2KiBV1,
		Miner: in.sector.Miner, Randomness: in.randomness, VanillaProofs: [][]byte{in.winning}})
	if err != nil || len(res.Proofs) != 1 {
		t.Fatalf("winning PoSt with the written key: %+v %v", res, err)
	}

	winning := abi.RegisteredPoStProof_StackedDrgWinning2KiBV1
	ref := api.ProofTypeRef{PoSt: &winning}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	origVK, err := os.ReadFile(srs.VKPath(path))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(name string, damage func(), want ...string) {
		t.Helper()
		if _, err := c.Evict(ctx, ref); err != nil {
			t.Fatalf("%s: evict: %v", name, err)
		}
		damage()
		_, err := c.Preload(ctx, ref)
		var e *api.Error
		if !errors.As(err, &e) || e.Code != api.CodeUnavailable {
			t.Fatalf("%s: preload gave %v, want code unavailable", name, err)
		}
		for _, w := range append(want, "unusable parameter file", path) {
			if !strings.Contains(e.Message, w) {
				t.Errorf("%s: message lacks %q: %s", name, w, e.Message)
			}
		}
		t.Logf("%s: %s", name, e.Message)
		write(t, path, orig)
		write(t, srs.VKPath(path), origVK)
	}
	corrupt("foreign .vk", func() {
		other := *vk
		other.DeltaG1 = vk.AlphaG1
		f, err := os.Create(srs.VKPath(path))
		if err == nil {
			_, err = other.WriteTo(f)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}, "does not belong to", srs.VKPath(path), "delta_g1")
	corrupt("flipped byte in h", func() {
		bad := append([]byte(nil), orig...)
		bad[hAt] ^= 0x01
		write(t, path, bad)
	}, "h[3]")
	corrupt("truncated", func() {
		if err := os.Truncate(path, int64(len(orig))-1000); err != nil {
			t.Fatal(err)
		}
	}, "truncated")
	if r, err := c.Preload(ctx, ref); err != nil || !r.Resident || r.Took <= 0 {
		t.Fatalf("restored pair: %+v %v", r, err)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
