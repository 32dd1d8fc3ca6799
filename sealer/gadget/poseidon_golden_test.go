package gadget

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

var updatePoseidonGolden = flag.Bool("update-poseidon-golden", false, "rewrite testdata/poseidon_shapes.golden")

const poseidonGoldenPath = "testdata/poseidon_shapes.golden"

// poseidonRowFingerprint is SHA-256 over the sizes and, for every circuit row, each side's
// sorted (variable, coefficient) terms: the row fingerprint. It reads rows through
// Shape.Row, so it does not depend on how the recorder lays out its digest.
func poseidonRowFingerprint(s *r1cs.Shape) [32]byte {
	h := sha256.New()
	var buf [8]byte
	u64 := func(v uint64) { binary.LittleEndian.PutUint64(buf[:], v); h.Write(buf[:]) }
	u64(uint64(s.NumInputs))
	u64(uint64(s.NumAux))
	u64(uint64(s.NumConstraints))
	for j := range s.NumConstraints {
		a, b, c := s.Row(j)
		for _, side := range []r1cs.LC{a, b, c} {
			u64(uint64(len(side)))
			for _, term := range side {
				u64(uint64(term.Var))
				var le [fr.Bytes]byte
				fr.LittleEndian.PutElement(&le, term.Coeff)
				h.Write(le[:])
			}
		}
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

type poseidonGolden struct {
	rows              int
	digest, rowDigest string
}

func recordPoseidonShape(t *testing.T, arity int) *r1cs.Shape {
	t.Helper()
	rec := r1cs.NewRecorder(r1cs.Capacity{})
	if _, err := PoseidonHashCircuit(rec, poseidonForTest(t, arity), poseidonAllocPreimage(rec, make([]fr.Element, arity))); err != nil {
		t.Fatal(err)
	}
	return rec.Finish()
}

// TestPoseidonShapeGolden pins, per arity, the recorded shape's digest and the row
// fingerprint of the hash over arity fresh aux variables. Any change to a row, a side, a
// coefficient or the allocation order changes them. Regenerate (after checking why it
// changed) with: go test ./sealer/gadget -run PoseidonShapeGolden -update-poseidon-golden
func TestPoseidonShapeGolden(t *testing.T) {
	got := map[int]poseidonGolden{}
	for _, arity := range PoseidonArities {
		s := recordPoseidonShape(t, arity)
		if err := s.Validate(); err != nil {
			t.Fatalf("arity %d: %v", arity, err)
		}
		fp := poseidonRowFingerprint(s)
		got[arity] = poseidonGolden{s.NumConstraints, hex.EncodeToString(s.Digest[:]), hex.EncodeToString(fp[:])}
	}
	if *updatePoseidonGolden {
		writePoseidonGolden(t, got)
		return
	}
	want := readPoseidonGolden(t)
	for _, arity := range PoseidonArities {
		w, ok := want[arity]
		if !ok {
			t.Errorf("arity %d missing from %s", arity, poseidonGoldenPath)
			continue
		}
		g := got[arity]
		if g.rows != w.rows || g.rowDigest != w.rowDigest {
			t.Errorf("arity %d: rows %d fingerprint %s, golden %d %s", arity, g.rows, g.rowDigest, w.rows, w.rowDigest)
		}
		if g.digest != w.digest {
			t.Errorf("arity %d: shape digest %s, golden %s (if only this differs, the recorder's digest layout changed)",
				arity, g.digest, w.digest)
		}
	}
}

func writePoseidonGolden(t *testing.T, g map[int]poseidonGolden) {
	var b strings.Builder
	b.WriteString("# arity rows shape-digest row-fingerprint (Poseidon circuit over arity fresh aux; see poseidon_golden_test.go)\n")
	for _, arity := range PoseidonArities {
		fmt.Fprintf(&b, "%d %d %s %s\n", arity, g[arity].rows, g[arity].digest, g[arity].rowDigest)
	}
	if err := os.MkdirAll(filepath.Dir(poseidonGoldenPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(poseidonGoldenPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readPoseidonGolden(t *testing.T) map[int]poseidonGolden {
	f, err := os.Open(poseidonGoldenPath)
	if err != nil {
		t.Fatalf("%v (run with -update-poseidon-golden to create it)", err)
	}
	defer f.Close()
	out := map[int]poseidonGolden{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 4 {
			t.Fatalf("bad golden line %q", line)
		}
		arity, err1 := strconv.Atoi(fields[0])
		rows, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("bad golden line %q", line)
		}
		out[arity] = poseidonGolden{rows, fields[2], fields[3]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
