package groth16

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

func tpValidFile(t testing.TB) []byte {
	rng := rand.New(rand.NewPCG(21, 22))
	return tpEncode(t, tpParams(rng, tpShape, false))
}

func tpExpectFormatError(t *testing.T, what string, err error, vector string, index int, want error) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Errorf("%s: got %v, want a *FormatError", what, err)
		return
	}
	if fe.Vector != vector || fe.Index != index || !errors.Is(err, want) {
		t.Errorf("%s: got %v (vector %q index %d), want %s[%d]: %v", what, err, fe.Vector, fe.Index, vector, index, want)
	}
}

// Every corruption of every kind, in every vector, is reported with the vector's name and
// the point's index, whatever the number of workers.
func TestCorruptPointsNamed(t *testing.T) {
	enc := tpValidFile(t)
	modulus := tpModulusBytes()
	type corruption struct {
		name   string
		mutate func(pt []byte, g2 bool)
		want   error
	}
	corruptions := []corruption{
		{"identity", func(pt []byte, _ bool) { clear(pt); pt[0] = 0x40 }, ErrIdentity},
		{"infinity flag with data", func(pt []byte, _ bool) { pt[0] |= 0x40 }, ErrInvalidEncoding},
		{"all zero", func(pt []byte, _ bool) { clear(pt) }, ErrNotOnCurve},
		{"compressed flag", func(pt []byte, _ bool) { pt[0] |= 0x80 }, ErrInvalidEncoding},
		{"flags 001", func(pt []byte, _ bool) { pt[0] |= 0x20 }, ErrInvalidEncoding},
		{"flags 111", func(pt []byte, _ bool) { pt[0] |= 0xe0 }, ErrInvalidEncoding},
		{"x = p", func(pt []byte, _ bool) { copy(pt, modulus[:]) }, ErrNonCanonical},
		{"last coordinate = p", func(pt []byte, _ bool) { copy(pt[len(pt)-48:], modulus[:]) }, ErrNonCanonical},
		{"y off by one", func(pt []byte, _ bool) { pt[len(pt)-1] ^= 1 }, ErrNotOnCurve},
		{"x.c0 off by one", func(pt []byte, g2 bool) { pt[95] ^= 1 }, ErrNotOnCurve},
	}
	points := []struct {
		vector string
		index  int
		g2     bool
	}{
		{"alpha_g1", 0, false}, {"beta_g1", 0, false}, {"beta_g2", 0, true}, {"gamma_g2", 0, true},
		{"delta_g1", 0, false}, {"delta_g2", 0, true}, {"ic", 2, false}, {"h", 0, false},
		{"h", 14, false}, {"l", 3, false}, {"a", 6, false}, {"b_g1", 1, false}, {"b_g2", 2, true},
	}
	for _, pt := range points {
		size := 96
		if pt.g2 {
			size = 192
		}
		off := tpOffset(tpShape, pt.vector, pt.index)
		for _, c := range corruptions {
			b := bytes.Clone(enc)
			c.mutate(b[off:off+size], pt.g2)
			for _, workers := range []int{1, 4} {
				_, err := ParseParams(b, ReadOptions{Workers: workers, AllowDev: true})
				tpExpectFormatError(t, pt.vector+"/"+c.name, err, pt.vector, pt.index, c.want)
			}
		}
	}
}

// The reported error is the first bad point in file order, even when a later chunk
// fails first in time.
func TestFirstErrorInFileOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	s := ShapeCounts{Inputs: 1, Aux: 20000, DomainSize: 1 << 15, AAux: 0, BInput: 1, BAux: 0}
	enc := tpEncode(t, tpParams(rng, s, false))
	late := tpOffset(s, "l", 19999)
	early := tpOffset(s, "h", 30000)
	enc[late+95] ^= 1
	for _, workers := range []int{1, 2, 8} {
		_, err := ParseParams(enc, ReadOptions{Workers: workers})
		tpExpectFormatError(t, "late only", err, "l", 19999, ErrNotOnCurve)
	}
	enc[early+95] ^= 1
	for _, workers := range []int{1, 2, 8} {
		_, err := ParseParams(enc, ReadOptions{Workers: workers})
		tpExpectFormatError(t, "early and late", err, "h", 30000, ErrNotOnCurve)
	}
}

func TestSubgroupChecks(t *testing.T) {
	enc := tpValidFile(t)
	g1 := tpG1NotInSubgroup(t)
	g2 := tpG2NotInSubgroup(t)
	raw1, raw2 := g1.RawBytes(), g2.RawBytes()

	put := func(vector string, index int, raw []byte) []byte {
		b := bytes.Clone(enc)
		copy(b[tpOffset(tpShape, vector, index):], raw)
		return b
	}
	// Proving-key vectors: unchecked by default (like bellperson's mapped reader),
	// rejected with SubgroupCheck.
	for _, c := range []struct {
		vector string
		index  int
		raw    []byte
	}{{"h", 2, raw1[:]}, {"a", 0, raw1[:]}, {"b_g2", 1, raw2[:]}} {
		b := put(c.vector, c.index, c.raw)
		if p, err := ParseParams(b, ReadOptions{}); err != nil {
			t.Errorf("%s: unchecked read refused a non-subgroup point: %v", c.vector, err)
		} else {
			p.Close()
		}
		_, err := ParseParams(b, ReadOptions{SubgroupCheck: true})
		tpExpectFormatError(t, c.vector+" checked", err, c.vector, c.index, ErrNotInSubgroup)
	}
	// Verifying-key points are always checked.
	for _, c := range []struct {
		vector string
		index  int
		raw    []byte
	}{{"ic", 1, raw1[:]}, {"alpha_g1", 0, raw1[:]}, {"delta_g2", 0, raw2[:]}} {
		_, err := ParseParams(put(c.vector, c.index, c.raw), ReadOptions{})
		tpExpectFormatError(t, c.vector, err, c.vector, c.index, ErrNotInSubgroup)
		vkLen := tpOffset(tpShape, "h", 0) - 4
		_, err = ParseVerifyingKey(put(c.vector, c.index, c.raw)[:vkLen])
		tpExpectFormatError(t, c.vector+" vk", err, c.vector, c.index, ErrNotInSubgroup)
	}
}

// Every strict prefix of a valid file fails with ErrTruncated, never a panic.
func TestEveryTruncationFails(t *testing.T) {
	enc := tpValidFile(t)
	for n := range len(enc) {
		if _, err := ParseParams(enc[:n], ReadOptions{}); !errors.Is(err, ErrTruncated) {
			t.Fatalf("prefix of %d/%d bytes: %v, want ErrTruncated", n, len(enc), err)
		}
	}
	vkLen := tpOffset(tpShape, "h", 0) - 4
	for n := range vkLen {
		if _, err := ParseVerifyingKey(enc[:n]); !errors.Is(err, ErrTruncated) {
			t.Fatalf("vk prefix of %d bytes: %v", n, err)
		}
		if _, err := ReadVerifyingKey(bytes.NewReader(enc[:n])); !errors.Is(err, ErrTruncated) {
			t.Fatalf("vk stream of %d bytes: %v", n, err)
		}
	}
}

func TestTruncationNamesVector(t *testing.T) {
	enc := tpValidFile(t)
	cases := []struct {
		cut    int
		vector string
		index  int
	}{
		{50, "alpha_g1", 0},
		{96 + 96 + 10, "beta_g2", 0},
		{864 + 2, "ic", -1},
		{tpOffset(tpShape, "l", 0) - 2, "l", -1},
		{tpOffset(tpShape, "l", 3), "l", -1},
		{tpOffset(tpShape, "b_g2", 2) + 191, "b_g2", -1},
	}
	for _, c := range cases {
		_, err := ParseParams(enc[:c.cut], ReadOptions{})
		tpExpectFormatError(t, "cut", err, c.vector, c.index, ErrTruncated)
	}
}

// A huge declared length is refused from the length field alone, before any allocation.
func TestHugeCountsRefusedBeforeAllocating(t *testing.T) {
	enc := tpValidFile(t)
	for _, vector := range []string{"ic", "h", "l", "a", "b_g1", "b_g2"} {
		b := bytes.Clone(enc)
		binary.BigEndian.PutUint32(b[tpOffset(tpShape, vector, 0)-4:], 0xffffffff)
		start := time.Now()
		_, err := ParseParams(b, ReadOptions{})
		tpExpectFormatError(t, vector+" count", err, vector, -1, ErrTruncated)
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refusing a huge count took %v", vector, d)
		}
		vkLen := tpOffset(tpShape, "h", 0) - 4
		if vector == "ic" {
			if _, err := ReadVerifyingKey(bytes.NewReader(b[:vkLen])); !errors.Is(err, ErrTruncated) {
				t.Errorf("stream with a huge IC count: %v", err)
			}
		}
	}
	// A shorter declared length leaves bytes over: the next length field is misread, and
	// whatever follows, the file is refused.
	b := bytes.Clone(enc)
	binary.BigEndian.PutUint32(b[tpOffset(tpShape, "a", 0)-4:], 6)
	if _, err := ParseParams(b, ReadOptions{AllowDev: true}); err == nil {
		t.Error("a count one too small was accepted")
	}
}

// Chunks of at least batchSubgroupMin points are checked as a batch; a failing batch is
// rechecked point by point so that the error still names the culprit.
func TestBatchedSubgroupCheckNamesPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	s := ShapeCounts{Inputs: 1, Aux: 1, DomainSize: 512, AAux: 0, BInput: 1, BAux: batchSubgroupMin + 10}
	enc := tpEncode(t, tpParams(rng, s, false))
	if p, err := ParseParams(enc, ReadOptions{SubgroupCheck: true}); err != nil {
		t.Fatalf("valid params refused by the batched check: %v", err)
	} else {
		p.Close()
	}
	g1, g2 := tpG1NotInSubgroup(t), tpG2NotInSubgroup(t)
	raw1, raw2 := g1.RawBytes(), g2.RawBytes()
	for _, c := range []struct {
		vector string
		index  int
		raw    []byte
	}{{"h", 300, raw1[:]}, {"h", 510, raw1[:]}, {"b_g2", batchSubgroupMin + 5, raw2[:]}} {
		b := bytes.Clone(enc)
		copy(b[tpOffset(s, c.vector, c.index):], c.raw)
		_, err := ParseParams(b, ReadOptions{SubgroupCheck: true})
		tpExpectFormatError(t, "batched "+c.vector, err, c.vector, c.index, ErrNotInSubgroup)
		if p, err := ParseParams(b, ReadOptions{}); err != nil {
			t.Errorf("%s without SubgroupCheck: %v", c.vector, err)
		} else {
			p.Close()
		}
	}
}
