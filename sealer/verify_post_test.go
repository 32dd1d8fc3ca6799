package sealer

import (
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

func TestCurioWindowPoStVerifies(t *testing.T) {
	pub, raw := curioFixture(t)
	if err := decodeAndVerifyPoSt(pub, raw); err != nil {
		t.Fatalf("real Curio 32 GiB Window PoSt vanilla proof rejected: %v", err)
	}
}

// TestCurioWindowPoStEveryByteFlipCaught flips each byte of the real vanilla proof (every
// byte in full mode; a stride under -short, since each verification costs ~100 Poseidon
// hashes) and expects a decode error or a VerifyError every time.
func TestCurioWindowPoStEveryByteFlipCaught(t *testing.T) {
	pub, raw := curioFixture(t)
	stride := 1
	if testing.Short() {
		stride = 127
	}
	var positions []int
	for i := 0; i < len(raw); i += stride {
		positions = append(positions, i)
	}
	var (
		mu     sync.Mutex
		missed []int
		wg     sync.WaitGroup
	)
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, len(raw))
			for pos := range work {
				copy(buf, raw)
				buf[pos] ^= 0x01
				err := decodeAndVerifyPoSt(pub, buf)
				var de *vanilla.DecodeError
				if err == nil || !(errors.Is(err, ErrInvalidVanilla) || errors.As(err, &de)) {
					mu.Lock()
					missed = append(missed, pos)
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range positions {
		work <- p
	}
	close(work)
	wg.Wait()
	if len(missed) > 0 {
		t.Fatalf("%d of %d byte flips not caught, first at offsets %v", len(missed), len(positions), missed[:min(len(missed), 10)])
	}
	t.Logf("%d byte flips, all caught", len(positions))
}

func TestCurioWindowPoStErrorsAreLocated(t *testing.T) {
	pub, raw := curioFixture(t)
	cases := []struct {
		name   string
		mutate func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic)
		check  Check
		chal   int
	}{
		{"wrong sector", func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic) { pub.Sectors[0].Number++ }, CheckSector, -1},
		{"wrong comm_c", func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic) { p.Sectors[0].CommC[0] ^= 1 }, CheckCommR, -1},
		{"other randomness", func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic) { pub.Randomness[0] ^= 1 }, CheckChallenge, 0},
		{"leaf of challenge 4", func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic) {
			p.Sectors[0].InclusionProofs[4].Leaf[3] ^= 1
		}, CheckPath, 4},
		{"root of challenge 7", func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic) {
			p.Sectors[0].InclusionProofs[7].Root[3] ^= 1
		}, CheckRoot, 7},
		{"sibling of challenge 9", func(p *vanilla.FallbackPoStSectorProof, pub *PoStPublic) {
			p.Sectors[0].InclusionProofs[9].Sub[0].Hashes[2][0] ^= 1
		}, CheckPath, 9},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := vanilla.DecodePoStSectorProof(raw) // fresh deep copy
			if err != nil {
				t.Fatal(err)
			}
			pb := *pub
			pb.Sectors = append([]PoStSector(nil), pub.Sectors...)
			pb.Randomness = append([]byte(nil), pub.Randomness...)
			tc.mutate(q, &pb)
			err = VerifyPoSt(&pb, []*vanilla.FallbackPoStSectorProof{q})
			ve, ok := AsVerifyError(err)
			if !ok {
				t.Fatalf("want *VerifyError, got %v", err)
			}
			if ve.Check != tc.check || ve.Challenge != tc.chal || !ve.HasSector || ve.Sector != uint64(pb.Sectors[0].Number) || ve.Partition != 0 {
				t.Fatalf("got %+v (%v), want check %v challenge %d sector %d partition 0", ve, ve, tc.check, tc.chal, pb.Sectors[0].Number)
			}
			t.Log(ve)
		})
	}
}
