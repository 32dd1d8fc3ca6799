package groth16

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
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
