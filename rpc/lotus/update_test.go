package lotus_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/ipfs/go-cid"

	"github.com/snarkpipe/snarkpipe/rpc/lotus"
	"github.com/snarkpipe/snarkpipe/types"
)

// snapCIDs are the three CIDs of a ProveReplicaUpdate2 call: sector key (old sealed), new
// sealed and new unsealed, made from the given commitments.
type snapCIDs struct{ key, sealed, unsealed cid.Cid }

func cidsOf(t testing.TB, commROld, commRNew, commDNew [32]byte) snapCIDs {
	t.Helper()
	key, err1 := types.CommRToCID(commROld)
	sealed, err2 := types.CommRToCID(commRNew)
	unsealed, err3 := types.CommDToCID(commDNew)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return snapCIDs{key, sealed, unsealed}
}

func seqCommitment(start byte) [32]byte {
	var c [32]byte
	for i := range c {
		c[i] = start + byte(i)
	}
	c[31] &= 0x3f // a canonical field element, as real commitments are
	return c
}

var snapSector = storiface.SectorRef{ID: abi.SectorID{Miner: 1000, Number: 11}, ProofType: abi.RegisteredSealProof_StackedDrg2KiBV1_1}

// TestProveReplicaUpdate2CallIDThenReturn: the c2 role advertises ProveReplicaUpdate2 next
// to C2 when an update proof type is servable; the call answers a CallID at once and the
// proof arrives once through ReturnProveReplicaUpdate2, with the request converted as
// lotus' own worker does (update proof of the sector's size, commitments from the CIDs,
// vanilla proofs byte for byte).
func TestProveReplicaUpdate2CallIDThenReturn(t *testing.T) {
	m := newTestMiner(t)
	dir := t.TempDir()
	p := &fakeProver{snap: true}
	w, _ := startWorker(t, testConfig(), dir, p, m)
	registerAll(t, w, m, lotus.AllRoles)
	ctx := testCtx(t, 30*time.Second)
	wc := m.worker(w.url(lotus.RoleC2))
	tts, err := wc.TaskTypes(ctx)
	if err != nil || len(tts) != 2 {
		t.Fatalf("TaskTypes %v, %v", tts, err)
	}
	for _, tt := range []sealtasks.TaskType{sealtasks.TTCommit2, sealtasks.TTProveReplicaUpdate2} {
		if _, ok := tts[tt]; !ok {
			t.Fatalf("c2 role advertises %v, lacks %s", tts, tt)
		}
	}
	info, err := wc.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := info.Resources.Resources[sealtasks.TTProveReplicaUpdate2][abi.RegisteredSealProof_StackedDrg32GiBV1_1]; !ok || r.MaxMemory != 0 || r.GPUUtilization != 0 || r.MaxConcurrent != testConfig().C2MaxConcurrent {
		t.Fatalf("PR2 resource override %+v (present %v)", r, ok)
	}

	commROld, commRNew, commDNew := seqCommitment(1), seqCommitment(2), seqCommitment(3)
	c := cidsOf(t, commROld, commRNew, commDNew)
	vproofs := storiface.ReplicaVanillaProofs{[]byte("partition proof 0")}
	ci, err := wc.ProveReplicaUpdate2(ctx, snapSector, c.key, c.sealed, c.unsealed, vproofs)
	if err != nil {
		t.Fatal(err)
	}
	if ci.Sector != snapSector.ID {
		t.Fatalf("CallID %+v", ci)
	}
	r := m.waitReturn(t, 10*time.Second)
	if r.Method != "ProveReplicaUpdate2" || r.ID != ci || r.Err != nil {
		t.Fatalf("returned %+v", r)
	}
	p.mu.Lock()
	req := p.updateReq[0]
	p.mu.Unlock()
	if !bytes.Equal(r.Proof, fakeUpdateProof(req)) {
		t.Fatalf("proof %x is not the service's", r.Proof)
	}
	if req.UpdateProofType != abi.RegisteredUpdateProof_StackedDrg2KiBV1 || req.Sector != snapSector.ID ||
		!bytes.Equal(req.CommROld, commROld[:]) || !bytes.Equal(req.CommRNew, commRNew[:]) || !bytes.Equal(req.CommDNew, commDNew[:]) ||
		len(req.VanillaProofs) != 1 || !bytes.Equal(req.VanillaProofs[0], vproofs[0]) || !strings.HasPrefix(req.Key, "lotus-pr2-1000-11-") {
		t.Fatalf("service request %+v", req)
	}
	waitNoRecords(t, filepath.Join(dir, "c2", "calls"))
	m.expectNoReturn(t, 200*time.Millisecond)
}

// TestProveReplicaUpdate2WireShapes posts the call as lotus-miner's JSON (CIDs as {"/":…},
// vanilla proofs as base64 strings) and checks the ReturnProveReplicaUpdate2 request.
func TestProveReplicaUpdate2WireShapes(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{snap: true}, m)
	c := cidsOf(t, seqCommitment(1), seqCommitment(2), seqCommitment(3))
	v := []byte("vanilla partition 0")
	body := `{"jsonrpc":"2.0","id":1,"method":"Filecoin.ProveReplicaUpdate2","params":[{"ID":{"Miner":1000,"Number":11},"ProofType":5},` +
		`{"/":"` + c.key.String() + `"},{"/":"` + c.sealed.String() + `"},{"/":"` + c.unsealed.String() + `"},["` + base64.StdEncoding.EncodeToString(v) + `"]]}`
	raw := postRaw(t, w.url(lotus.RoleC2), body)
	var answer struct {
		Result storiface.CallID
		Error  any
	}
	if err := json.Unmarshal(raw, &answer); err != nil || answer.Error != nil || answer.Result.Sector != snapSector.ID {
		t.Fatalf("answer %s: %v", raw, err)
	}
	m.waitReturn(t, 10*time.Second)
	m.mu.Lock()
	ret := m.rawBody[len(m.rawBody)-1]
	m.mu.Unlock()
	var call struct {
		Method string
		Params []json.RawMessage
	}
	if err := json.Unmarshal(ret, &call); err != nil || call.Method != "Filecoin.ReturnProveReplicaUpdate2" || len(call.Params) != 3 || string(call.Params[2]) != "null" {
		t.Fatalf("Return request %s: %v", ret, err)
	}
	var got storiface.CallID
	if err := json.Unmarshal(call.Params[0], &got); err != nil || got != answer.Result {
		t.Fatalf("Return for %s, want %v", call.Params[0], answer.Result)
	}
}

// TestProveReplicaUpdate2NotAdvertised: without servable update parameters the c2 role
// advertises only C2; TaskDisable also withdraws it when it is servable, and a disabled
// task type refuses the call.
func TestProveReplicaUpdate2NotAdvertised(t *testing.T) {
	m := newTestMiner(t)
	p := &fakeProver{}
	w, _ := startWorker(t, testConfig(), t.TempDir(), p, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleC2), minerToken)
	advertised := func() bool {
		tts, err := wc.TaskTypes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, ok := tts[sealtasks.TTProveReplicaUpdate2]
		return ok
	}
	if advertised() {
		t.Fatal("PR2 advertised without servable update parameters")
	}
	p.mu.Lock()
	p.snap = true // parameters installed while running
	p.mu.Unlock()
	if !advertised() {
		t.Fatal("PR2 not advertised once servable")
	}
	if err := wc.TaskDisable(ctx, sealtasks.TTProveReplicaUpdate2); err != nil {
		t.Fatal(err)
	}
	if advertised() {
		t.Fatal("PR2 advertised after TaskDisable")
	}
	c := cidsOf(t, seqCommitment(1), seqCommitment(2), seqCommitment(3))
	if _, err := wc.ProveReplicaUpdate2(ctx, snapSector, c.key, c.sealed, c.unsealed, [][]byte{{1}}); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("disabled PR2 call: %v", err)
	}
	if err := wc.TaskEnable(ctx, sealtasks.TTProveReplicaUpdate2); err != nil || !advertised() {
		t.Fatalf("TaskEnable: %v", err)
	}
	// The PoSt roles never serve it.
	wd := dialWorker(t, w.url(lotus.RoleWindow), minerToken)
	if err := wd.TaskEnable(ctx, sealtasks.TTProveReplicaUpdate2); err == nil {
		t.Fatal("wdpost role enabled PR2")
	}
}

// TestProveReplicaUpdate2BadInput: CIDs of the wrong kind and vanilla proofs the service
// refuses come back as permanent CallErrors (ErrUnknown) naming the problem, and the
// worker keeps serving.
func TestProveReplicaUpdate2BadInput(t *testing.T) {
	m := newTestMiner(t)
	w, _ := startWorker(t, testConfig(), t.TempDir(), &fakeProver{snap: true}, m)
	ctx := testCtx(t, 30*time.Second)
	wc := dialWorker(t, w.url(lotus.RoleC2), minerToken)
	c := cidsOf(t, seqCommitment(1), seqCommitment(2), seqCommitment(3))
	for _, tc := range []struct {
		name                  string
		key, sealed, unsealed cid.Cid
		sector                storiface.SectorRef
		vproofs               [][]byte
		want                  string
	}{
		{"unsealed CID as sector key", c.unsealed, c.sealed, c.unsealed, snapSector, [][]byte{{1}}, "sector key CID"},
		{"sealed CID as new unsealed", c.key, c.sealed, c.sealed, snapSector, [][]byte{{1}}, "new unsealed CID"},
		{"unknown seal proof", c.key, c.sealed, c.unsealed, storiface.SectorRef{ID: snapSector.ID, ProofType: 99}, [][]byte{{1}}, "no update proof for seal proof 99"},
		{"refused vanilla", c.key, c.sealed, c.unsealed, snapSector, [][]byte{[]byte("invalid")}, "vanilla partition proofs: truncated"},
	} {
		ci, err := wc.ProveReplicaUpdate2(ctx, tc.sector, tc.key, tc.sealed, tc.unsealed, tc.vproofs)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r := m.waitReturn(t, 10*time.Second)
		if r.ID != ci || r.Method != "ProveReplicaUpdate2" || r.Err == nil || r.Err.Code != storiface.ErrUnknown || !strings.Contains(r.Err.Message, tc.want) || r.Proof != nil {
			t.Fatalf("%s: returned %+v, want ErrUnknown naming %q", tc.name, r, tc.want)
		}
	}
	ci, err := wc.ProveReplicaUpdate2(ctx, snapSector, c.key, c.sealed, c.unsealed, [][]byte{{1}})
	if err != nil {
		t.Fatal(err)
	}
	if r := m.waitReturn(t, 10*time.Second); r.ID != ci || r.Err != nil || len(r.Proof) == 0 {
		t.Fatalf("valid call after refusals: %+v", r)
	}
}

// TestCrashDuringProveReplicaUpdate2ReportsWorkerRestart: an update call abandoned by a
// crash is answered after restart through ReturnProveReplicaUpdate2 (not ReturnSealCommit2)
// with ErrTempWorkerRestart.
func TestCrashDuringProveReplicaUpdate2ReportsWorkerRestart(t *testing.T) {
	m := newTestMiner(t)
	dir := t.TempDir()
	cfg := testConfig()
	cfg.Roles = []lotus.Role{lotus.RoleC2}
	a, crash := startWorker(t, cfg, dir, &fakeProver{snap: true, gate: make(chan struct{})}, m)
	ctx := testCtx(t, 30*time.Second)
	c := cidsOf(t, seqCommitment(1), seqCommitment(2), seqCommitment(3))
	ci, err := dialWorker(t, a.url(lotus.RoleC2), minerToken).ProveReplicaUpdate2(ctx, snapSector, c.key, c.sealed, c.unsealed, [][]byte{{1}})
	if err != nil {
		t.Fatal(err)
	}
	crash()
	m.expectNoReturn(t, 100*time.Millisecond)
	startWorker(t, cfg, dir, &fakeProver{snap: true}, m)
	r := m.waitReturn(t, 10*time.Second)
	if r.Method != "ProveReplicaUpdate2" || r.ID != ci || r.Err == nil || r.Err.Code != storiface.ErrTempWorkerRestart {
		t.Fatalf("after restart the miner got %+v", r)
	}
	waitNoRecords(t, filepath.Join(dir, "c2", "calls"))
}
