package groth16

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

func TestCheckShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	p := tpParams(rng, tpShape, false)
	if err := p.CheckShape(tpShape); err != nil {
		t.Fatalf("matching shape refused: %v", err)
	}
	cases := []struct {
		name   string
		modify func(s *ShapeCounts)
		want   []string
	}{
		{"inputs", func(s *ShapeCounts) { s.Inputs++ }, []string{"ic has 3 points, want 4", "a has 7 points, want 8"}},
		{"aux", func(s *ShapeCounts) { s.Aux-- }, []string{"l has 5 points, want 4"}},
		{"domain", func(s *ShapeCounts) { s.DomainSize = 32 }, []string{"h has 15 points, want 31"}},
		{"domain not pow2", func(s *ShapeCounts) { s.DomainSize = 15 }, []string{"not a power of two"}},
		{"a density", func(s *ShapeCounts) { s.AAux = 5 }, []string{"a has 7 points, want 8"}},
		{"b input density", func(s *ShapeCounts) { s.BInput = 0 }, []string{"b_g1 has 3 points, want 2", "b_g2 has 3 points, want 2"}},
		{"b aux density", func(s *ShapeCounts) { s.BAux = 3 }, []string{"b_g1 has 3 points, want 4", "b_g2 has 3 points, want 4"}},
	}
	for _, c := range cases {
		s := tpShape
		c.modify(&s)
		err := p.CheckShape(s)
		if !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v, want ErrShape", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not mention %q", c.name, err, w)
			}
		}
	}
	p.BG2 = p.BG2[:2]
	if err := p.CheckShape(tpShape); err == nil || !strings.Contains(err.Error(), "b_g2 has 2 points, want 3") {
		t.Errorf("short b_g2: %v", err)
	}
}

func TestParamsFileSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, dev := range []bool{false, true} {
		enc := tpEncode(t, tpParams(rng, tpShape, dev))
		if got := tpShape.ParamsFileSize(dev); got != int64(len(enc)) {
			t.Fatalf("dev=%v: ParamsFileSize = %d, encoded %d bytes", dev, got, len(enc))
		}
	}
}

// PoRep 32 GiB (spec groth16-gpu.md §1.2; counts pinned by sealer/porep's golden test):
// 130,278,541 rows, 328 inputs, 130,169,893 aux, A-aux 129,753,292, B 1 input and
// 33,112,281 aux → m = 2^27 and a 47.37 GB file with a 32,356-byte verifying key.
func TestPoRep32GiBShape(t *testing.T) {
	c := r1cs.Counts{
		Sizes: r1cs.Sizes{NumInputs: 328, NumAux: 130_169_893, NumConstraints: 130_278_541},
		AAux:  129_753_292, BInput: 1, BAux: 33_112_281,
	}
	s := ShapeCountsOf(c)
	if s.DomainSize != 1<<27 {
		t.Fatalf("domain %d, want 2^27", s.DomainSize)
	}
	vk := int64(864 + 4 + 328*96)
	h := int64(4 + (1<<27-1)*96)
	l := int64(4 + 130_169_893*96)
	a := int64(4 + (328+129_753_292)*96)
	bg1 := int64(4 + 33_112_282*96)
	bg2 := int64(4 + 33_112_282*192)
	if vk != 32_356 {
		t.Fatalf("vk %d bytes, want 32,356", vk)
	}
	want := vk + h + l + a + bg1 + bg2
	if got := s.ParamsFileSize(false); got != want {
		t.Fatalf("ParamsFileSize = %d, want %d", got, want)
	}
	if want/10_000_000 != 4737 { // 47.37 GB
		t.Fatalf("file size %d, want 47.37 GB", want)
	}
}
