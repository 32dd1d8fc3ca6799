package groth16

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

func TestParamsRoundTrip(t *testing.T) {
	for _, dev := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(1, 2))
		want := tpParams(rng, tpShape, dev)
		enc := tpEncode(t, want)

		// 864-byte VK prefix, six length fields, 96/192 bytes per point (spec §1.2).
		s := tpShape
		g1Count := s.Inputs + (s.DomainSize - 1) + s.Aux + (s.Inputs + s.AAux) + (s.BInput + s.BAux)
		size := 864 + 6*4 + 96*g1Count + 192*(s.BInput+s.BAux)
		if dev {
			size += 52
		}
		if len(enc) != size {
			t.Fatalf("dev=%v: encoded %d bytes, want %d", dev, len(enc), size)
		}

		got, err := ParseParams(enc, ReadOptions{AllowDev: true})
		if err != nil {
			t.Fatalf("dev=%v: ParseParams: %v", dev, err)
		}
		if !got.Equal(want) {
			t.Fatalf("dev=%v: read back params differ from the written ones", dev)
		}
		if got.Dev != dev {
			t.Fatalf("Dev = %v, want %v", got.Dev, dev)
		}
		if again := tpEncode(t, got); !bytes.Equal(again, enc) {
			t.Fatalf("dev=%v: re-encoding differs", dev)
		}
		got.Close()
	}
}

// TestParamsLayout pins the byte layout by hand: u32 big-endian counts where §1.2 puts
// them, big-endian canonical coordinates, G2 imaginary part first.
func TestParamsLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := tpParams(rng, tpShape, false)
	enc := tpEncode(t, p)

	counts := map[string]int{"ic": 3, "h": 15, "l": 5, "a": 7, "b_g1": 3, "b_g2": 3}
	for name, want := range counts {
		off := tpOffset(tpShape, name, 0) - 4
		if got := binary.BigEndian.Uint32(enc[off:]); int(got) != want {
			t.Errorf("%s count at byte %d = %d, want %d", name, off, got, want)
		}
	}
	if off := tpOffset(tpShape, "ic", 0); off != 868 {
		t.Errorf("ic starts at byte %d, want 868 (864-byte VK prefix + count)", off)
	}

	be := func(e fp.Element) []byte { b := e.Bytes(); return b[:] }
	alpha := enc[0:96]
	if !bytes.Equal(alpha[:48], be(p.VK.AlphaG1.X)) || !bytes.Equal(alpha[48:], be(p.VK.AlphaG1.Y)) {
		t.Errorf("alpha_g1 is not X ‖ Y big-endian")
	}
	beta2 := enc[192:384]
	x, y := p.VK.BetaG2.X, p.VK.BetaG2.Y
	for i, part := range [][]byte{be(x.A1), be(x.A0), be(y.A1), be(y.A0)} {
		if !bytes.Equal(beta2[48*i:48*(i+1)], part) {
			t.Errorf("beta_g2 part %d is not in X.c1 ‖ X.c0 ‖ Y.c1 ‖ Y.c0 order", i)
		}
	}
	bg2 := enc[tpOffset(tpShape, "b_g2", 2):]
	if !bytes.Equal(bg2[:48], be(p.BG2[2].X.A1)) || !bytes.Equal(bg2[144:192], be(p.BG2[2].Y.A0)) {
		t.Errorf("b_g2[2] is not c1-first")
	}
	for _, off := range []int{0, 96, 192, 384, 576, 672, tpOffset(tpShape, "h", 4)} {
		if enc[off]&0xe0 != 0 {
			t.Errorf("flag bits set at byte %d: %#x", off, enc[off])
		}
	}
}

func TestVerifyingKeyIsParamsPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := tpParams(rng, tpShape, false)
	enc := tpEncode(t, p)
	var vkBuf bytes.Buffer
	n, err := p.VK.WriteTo(&vkBuf)
	if err != nil || n != int64(vkBuf.Len()) {
		t.Fatalf("VK WriteTo = %d, %v", n, err)
	}
	if vkBuf.Len() != 864+4+96*tpShape.Inputs || !bytes.HasPrefix(enc, vkBuf.Bytes()) {
		t.Fatalf("the .vk encoding (%d bytes) is not the prefix of the .params encoding", vkBuf.Len())
	}

	vk, err := ParseVerifyingKey(vkBuf.Bytes())
	if err != nil || !vk.Equal(&p.VK) {
		t.Fatalf("ParseVerifyingKey: %v", err)
	}
	// A stream reader stops after the IC vector, so it reads the VK of a .params stream.
	r := bytes.NewReader(enc)
	vk, err = ReadVerifyingKey(r)
	if err != nil || !vk.Equal(&p.VK) {
		t.Fatalf("ReadVerifyingKey on a params stream: %v", err)
	}
	if consumed := len(enc) - r.Len(); consumed != vkBuf.Len() {
		t.Fatalf("ReadVerifyingKey consumed %d bytes, want %d", consumed, vkBuf.Len())
	}
	// The strict parser refuses the rest of the params file.
	if _, err := ParseVerifyingKey(enc); !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("ParseVerifyingKey(params) = %v, want ErrTrailingBytes", err)
	}
}

func TestReadFilesAndDigest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := tpParams(rng, tpShape, false)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.params")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*")); len(left) != 0 {
		t.Fatalf("WriteFile left temporary files: %v", left)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	digest := Digest(raw)
	if fd, err := FileDigest(path); err != nil || fd != digest || len(fd) != DigestLen {
		t.Fatalf("FileDigest = %q, %v; Digest = %q", fd, err, digest)
	}

	got, err := ReadParams(path, ReadOptions{ExpectDigest: digest})
	if err != nil {
		t.Fatalf("ReadParams: %v", err)
	}
	defer got.Close()
	if !got.Equal(p) || got.Dev {
		t.Fatal("ReadParams returned different params")
	}
	wrong := []byte(digest)
	wrong[0] ^= 1
	if _, err := ReadParams(path, ReadOptions{ExpectDigest: string(wrong)}); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("wrong digest: %v, want ErrDigestMismatch", err)
	}
	if _, err := ReadParams(path, ReadOptions{ExpectDigest: "abc"}); err == nil {
		t.Fatal("malformed ExpectDigest accepted")
	}
	if _, err := ReadParams(filepath.Join(dir, "missing.params"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.params")
	os.WriteFile(empty, nil, 0o644)
	if _, err := ReadParams(empty, ReadOptions{}); !errors.Is(err, ErrTruncated) {
		t.Fatalf("empty file: %v, want ErrTruncated", err)
	}

	vkPath := filepath.Join(dir, "x.vk")
	var vkBuf bytes.Buffer
	p.VK.WriteTo(&vkBuf)
	os.WriteFile(vkPath, vkBuf.Bytes(), 0o644)
	vk, err := ReadVerifyingKeyFile(vkPath)
	if err != nil || !vk.Equal(&p.VK) {
		t.Fatalf("ReadVerifyingKeyFile: %v", err)
	}
	os.WriteFile(vkPath, append(vkBuf.Bytes(), 0), 0o644)
	if _, err := ReadVerifyingKeyFile(vkPath); !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf(".vk with a trailing byte: %v", err)
	}
}

func TestDevParams(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	enc := tpEncode(t, tpParams(rng, tpShape, true))
	if _, err := ParseParams(enc, ReadOptions{}); !errors.Is(err, ErrDevParams) {
		t.Fatalf("dev params without AllowDev: %v, want ErrDevParams", err)
	}
	body := len(enc) - 52
	if string(enc[body:body+16]) != "SNARKPIPE-DEVPRM" || binary.BigEndian.Uint32(enc[body+16:]) != 1 {
		t.Fatalf("trailer does not start with the magic and version 1: %q", enc[body:])
	}

	tamper := func(name string, mutate func([]byte) []byte, want error) {
		t.Helper()
		b := mutate(bytes.Clone(enc))
		_, err := ParseParams(b, ReadOptions{AllowDev: true})
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	tamper("digest byte", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, ErrBadDevTrailer)
	tamper("version", func(b []byte) []byte { b[body+19] = 2; return b }, ErrBadDevTrailer)
	tamper("short trailer", func(b []byte) []byte { return b[:len(b)-1] }, ErrBadDevTrailer)
	tamper("long trailer", func(b []byte) []byte { return append(b, 0) }, ErrBadDevTrailer)
	// A point changed to another valid point: only the trailer digest can notice.
	tamper("body point", func(b []byte) []byte {
		other := tpG1(rng)
		raw := other.RawBytes()
		copy(b[tpOffset(tpShape, "l", 1):], raw[:])
		return b
	}, ErrBadDevTrailer)
	tamper("magic typo", func(b []byte) []byte { b[body] = 'X'; return b }, ErrTrailingBytes)
}

func TestTrailingBytesRejected(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	enc := tpEncode(t, tpParams(rng, tpShape, false))
	_, err := ParseParams(append(enc, 0), ReadOptions{AllowDev: true})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Vector != "trailer" || fe.Offset != int64(len(enc)) || !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("one trailing byte: %v", err)
	}
}

// Vectors of at least offheapMinBytes live in anonymous mappings; Close releases them.
func TestOffHeapVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	s := ShapeCounts{Inputs: 2, Aux: 3, DomainSize: 1 << 14, AAux: 1, BInput: 1, BAux: 1}
	p := tpParams(rng, s, false)
	path := filepath.Join(t.TempDir(), "big.params")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParams(path, ReadOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(p) {
		t.Fatal("params differ")
	}
	mapped := 0
	for _, b := range got.offheap {
		if len(b.mem) > 0 {
			mapped++
			if len(b.mem) != (1<<14-1)*96 {
				t.Errorf("mapping of %d bytes, want only h's %d", len(b.mem), (1<<14-1)*96)
			}
		}
	}
	if mapped != 1 && runtime.GOOS == "linux" {
		t.Fatalf("%d off-heap mappings, want 1 (h)", mapped)
	}
	// A bad point deep in the mapped file is named, with the file's path.
	raw, _ := os.ReadFile(path)
	raw[tpOffset(s, "h", 10000)+95] ^= 1
	os.WriteFile(path, raw, 0o644)
	_, err = ReadParams(path, ReadOptions{})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Vector != "h" || fe.Index != 10000 || !errors.Is(err, ErrNotOnCurve) ||
		!strings.Contains(err.Error(), path) {
		t.Fatalf("corrupt h[10000]: %v", err)
	}

	if err := got.Close(); err != nil {
		t.Fatal(err)
	}
	if got.H != nil || got.offheap != nil {
		t.Fatal("Close left vectors behind")
	}
	if err := got.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestWriteRefusesIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	p := tpParams(rng, tpShape, false)
	p.A[4].X.SetZero()
	p.A[4].Y.SetZero()
	_, err := p.WriteTo(&bytes.Buffer{})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Vector != "a" || fe.Index != 4 || !errors.Is(err, ErrIdentity) {
		t.Fatalf("writing an identity point: %v", err)
	}
}

// gnark-crypto's own Decoder reads a bellperson file as six bare points then six
// u32-prefixed vectors (spec groth16-gpu.md §1.6): an independent check of our layout.
func TestLayoutAgreesWithGnarkDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	p := tpParams(rng, tpShape, false)
	enc := tpEncode(t, p)
	dec := bls.NewDecoder(bytes.NewReader(enc))
	var vk VerifyingKey
	var q Params
	for _, v := range []any{&vk.AlphaG1, &vk.BetaG1, &vk.BetaG2, &vk.GammaG2, &vk.DeltaG1, &vk.DeltaG2,
		&vk.IC, &q.H, &q.L, &q.A, &q.BG1, &q.BG2} {
		if err := dec.Decode(v); err != nil {
			t.Fatalf("gnark Decoder: %v", err)
		}
	}
	q.VK = vk
	if dec.BytesRead() != int64(len(enc)) || !q.Equal(p) {
		t.Fatalf("gnark Decoder read %d of %d bytes, equal=%v", dec.BytesRead(), len(enc), q.Equal(p))
	}
}

// Vectors spanning several parallel encoding rounds are written in order, and an
// identity point deep inside one is reported at its own index and offset.
func TestWriteManyChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	s := ShapeCounts{Inputs: 1, Aux: 1, DomainSize: 1 << 15, AAux: 0, BInput: 1, BAux: encodeChunkPoints + 4}
	p := tpParams(rng, s, true)
	enc := tpEncode(t, p)
	got, err := ParseParams(enc, ReadOptions{AllowDev: true})
	if err != nil || !got.Equal(p) {
		t.Fatalf("multi-round params did not read back: %v", err)
	}
	got.Close()

	p.H[20000] = bls.G1Affine{}
	var buf bytes.Buffer
	_, err = p.WriteTo(&buf)
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Vector != "h" || fe.Index != 20000 || fe.Offset != int64(tpOffset(s, "h", 20000)) {
		t.Fatalf("identity h[20000]: %v", err)
	}
	p.H[20000] = p.H[0]
	p.BG2[len(p.BG2)-1] = bls.G2Affine{}
	_, err = p.WriteTo(&buf)
	if !errors.As(err, &fe) || fe.Vector != "b_g2" || fe.Index != len(p.BG2)-1 {
		t.Fatalf("identity at the end of b_g2: %v", err)
	}
}
