package r1cs

import (
	"math/rand/v2"
	"testing"
)

// TestBitmapCountBelow checks the rank against counting bit by bit, at every position
// (word boundaries and the end included).
func TestBitmapCountBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 63, 64, 65, 200, 1000} {
		var b Bitmap
		for range n {
			b.Append(rng.IntN(3) == 0)
		}
		want := 0
		for i := 0; i <= n; i++ {
			if got := b.CountBelow(i); got != want {
				t.Fatalf("%d bits: CountBelow(%d) = %d, want %d", n, i, got, want)
			}
			if i < n && b.Get(i) {
				want++
			}
		}
		if b.CountBelow(n) != b.Count() {
			t.Fatalf("%d bits: CountBelow(Len) = %d, Count = %d", n, b.CountBelow(n), b.Count())
		}
	}
}
