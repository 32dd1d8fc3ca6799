package vanilla

import (
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
)

func BenchmarkDecodeC1_2KiB(b *testing.B) {
	enc := EncodeC1(syntheticC1(seal(b, abi.RegisteredSealProof_StackedDrg2KiBV1_1), 1))
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, err := DecodeC1(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePoSt32GiB(b *testing.B) {
	enc := EncodePoStSectorProof(syntheticPoSt(post(b, abi.RegisteredPoStProof_StackedDrgWindow32GiBV1_1), 1))
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, err := DecodePoStSectorProof(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeC1_32GiB decodes a full-shape 32 GiB output (~50 MB of JSON).
func BenchmarkDecodeC1_32GiB(b *testing.B) {
	enc := EncodeC1(syntheticC1(seal(b, abi.RegisteredSealProof_StackedDrg32GiBV1_1), 1))
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, err := DecodeC1(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeC1_32GiB(b *testing.B) {
	c := syntheticC1(seal(b, abi.RegisteredSealProof_StackedDrg32GiBV1_1), 1)
	b.SetBytes(int64(len(EncodeC1(c))))
	for b.Loop() {
		EncodeC1(c)
	}
}
