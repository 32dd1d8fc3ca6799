package itests

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/snarkpipe/snarkpipe/itests/kit"
	"github.com/snarkpipe/snarkpipe/rpc/api"
	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// A corrupt C1 output must be refused before any proving, with a permanent
// invalid-input error that names the failed check, through every front door, and the
// daemon must keep serving.

// corruptC1 is one way a C1 output goes bad on its way to the prover.
type corruptC1 struct {
	name string
	// edit returns the corrupt C1 output (the serde JSON inside Curio's wrapper).
	edit func(t testing.TB, c1 []byte) []byte
	// wrapper, when set, corrupts Curio's Commit2In wrapper itself instead.
	wrapper func(w []byte) []byte
	// want is what the error message must contain: the failed check, or the decoding
	// failure.
	want string
}

var corruptC1Cases = []corruptC1{
	{name: "flipped comm_d path sibling", want: "inclusion path check failed at comm_d",
		edit: editC1(func(o *vanilla.SealCommitPhase1Output) { o.VanillaProofs[0][0].CommDProofs.Base[0].Hashes[0][0] ^= 1 })},
	{name: "flipped comm_r", want: "comm_r = Poseidon2(comm_c, comm_r_last) check failed",
		edit: editC1(func(o *vanilla.SealCommitPhase1Output) { o.CommR[0] ^= 1 })},
	{name: "flipped column row", want: "column hash check failed",
		edit: editC1(func(o *vanilla.SealCommitPhase1Output) { o.VanillaProofs[0][1].ReplicaColumnProofs.CX.Rows[0][0] ^= 1 })},
	{name: "flipped labeling parent", want: "labeling proof check failed",
		edit: editC1(func(o *vanilla.SealCommitPhase1Output) { o.VanillaProofs[0][0].LabelingProofs[0].Parents[0][0] ^= 1 })},
	{name: "flipped seed", want: "challenged node check failed",
		edit: editC1(func(o *vanilla.SealCommitPhase1Output) { o.Seed[0] ^= 1 })},
	{name: "flipped digit mid-document", want: "check failed", edit: flipDigitAt(1, 2)},
	{name: "flipped digit at three quarters", want: "check failed", edit: flipDigitAt(3, 4)},
	{name: "truncated C1", want: "malformed input",
		edit: func(_ testing.TB, c1 []byte) []byte { return c1[:len(c1)/2] }},
	{name: "truncated wrapper", want: "commit2 wrapper",
		wrapper: func(w []byte) []byte { return w[:len(w)*2/3] }},
}

// editC1 decodes the C1 output, applies edit and encodes it again (the same serde JSON
// layout), so that exactly one value changes.
func editC1(edit func(*vanilla.SealCommitPhase1Output)) func(testing.TB, []byte) []byte {
	return func(t testing.TB, c1 []byte) []byte {
		t.Helper()
		out, err := vanilla.DecodeC1(c1)
		if err != nil {
			t.Fatal(err)
		}
		edit(out)
		return vanilla.EncodeC1(out)
	}
}

// flipDigitAt flips the lowest bit of the last digit of the first number at or after
// num/den of the document: a byte value (0–255) stays in range, so the JSON stays well
// formed and only the proof is wrong.
func flipDigitAt(num, den int) func(testing.TB, []byte) []byte {
	return func(t testing.TB, c1 []byte) []byte {
		t.Helper()
		out := append([]byte(nil), c1...)
		i := len(out) * num / den
		for i < len(out) && !isDigit(out[i]) {
			i++
		}
		for i+1 < len(out) && isDigit(out[i+1]) {
			i++
		}
		if i >= len(out) {
			t.Fatal("no number to flip")
		}
		out[i] ^= 1
		return out
	}
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// TestCorruptC1 sends every corruption of a valid 2 KiB C1 output through Curio's Prove
// and the native SealCommit2: each is refused at once with gRPC InvalidArgument and API
// code 2 (invalid input, not temporary) and the message names the failed check; no job
// is ever admitted. The daemon then proves a Window PoSt partition that verifies.
func TestCorruptC1(t *testing.T) {
	d := kit.StartDaemon(t, kit.DaemonOptions{})
	curio := dialCurio(t, d.CuzkAddr, 4)
	native := d.Client(t)
	s := kit.Sector2KiB(t, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	for _, tc := range corruptC1Cases {
		c1 := s.C1
		if tc.edit != nil {
			c1 = tc.edit(t, s.C1)
		}
		req := curioPoRep(t, s, c1)
		if tc.wrapper != nil {
			req.VanillaProof = tc.wrapper(req.VanillaProof)
		}
		_, err := curio.prove(ctx, req)
		t.Logf("%s: %v", tc.name, err)
		st, ok := status.FromError(err)
		if !ok || st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tc.want) {
			t.Errorf("%s through Curio: %v; want InvalidArgument containing %q", tc.name, err, tc.want)
		}
		if tc.wrapper != nil {
			continue // the native API takes the C1 output itself, not Curio's wrapper
		}
		_, err = native.SealCommit2(ctx, api.SealCommit2Request{Sector: s.ID, ProofType: s.SealProof, C1: c1})
		var e *api.Error
		if !errors.As(err, &e) || e.Code != api.CodeInvalidInput || e.Code.Temporary() || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s through the native API: %v; want code %d containing %q", tc.name, err, api.CodeInvalidInput, tc.want)
		}
	}

	// Refused before admission: the daemon never made a job of any of them.
	nst, err := native.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nst.Recent) != 0 {
		t.Errorf("jobs after refusals only: %+v", nst.Recent)
	}
	if !d.Running() {
		t.Fatal("daemon exited")
	}
	// And it keeps serving.
	sectors := []*kit.Sector{kit.Sector2KiB(t, 1), kit.Sector2KiB(t, 2)}
	rand := randomness(7)
	res, err := curio.prove(ctx, curioWindow(t, sectors, rand))
	if err != nil {
		t.Fatalf("valid job after the corrupt ones: %v", err)
	}
	if err := kit.VerifyPoSt(t, windowPoSt2KiB, rand, postSectors(sectors...), 0, res.GetProof()); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptC1ThenValidC2 refuses a corrupt C1 output and then proves the valid one of
// the same sector through the native API: the refusal leaves nothing behind that the
// valid request could trip over (it is not an idempotent replay of the failure).
// Expensive: a 2 KiB C2 on the CPU.
func TestCorruptC1ThenValidC2(t *testing.T) {
	kit.Expensive(t)
	d := kit.StartDaemon(t, kit.DaemonOptions{})
	native := d.Client(t)
	s := kit.Sector2KiB(t, 6)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	bad := corruptC1Cases[0].edit(t, s.C1)
	_, err := native.SealCommit2(ctx, api.SealCommit2Request{Sector: s.ID, ProofType: s.SealProof, C1: bad, Key: "c2-1000-6"})
	if api.CodeOf(err) != api.CodeInvalidInput {
		t.Fatalf("corrupt C1: %v; want code %d", err, api.CodeInvalidInput)
	}
	res, err := native.SealCommit2(ctx, api.SealCommit2Request{Sector: s.ID, ProofType: s.SealProof, C1: s.C1, Key: "c2-1000-6"})
	if err != nil {
		t.Fatalf("valid C1 after the corrupt one: %v", err)
	}
	if err := kit.VerifySeal(t, s.C1, res.Proof); err != nil {
		t.Fatal(err)
	}
	if len(res.Proof) != 192 {
		t.Errorf("proof of %d bytes, want one 192-byte partition proof (2 KiB: one partition)", len(res.Proof))
	}
}
