package pipeline

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend"
)

// streamsDouble is a pre-compiled double that runs two resident proofs at once.
type streamsDouble struct{ packedDouble }

func (streamsDouble) ProofStreams() int { return 2 }

// TestDeviceEntryCountsProofStreams: on a device that proves two partitions at once, a
// resident circuit's device entry reserves a second proof buffer set, and jobs still
// prove and verify through it.
func TestDeviceEntryCountsProofStreams(t *testing.T) {
	c := bitsJob(0).Circuits[0]
	h := hintFor(t, c)
	one := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{packedDouble{newResidentDouble(t)}}, Keys: BenchKeys{}}, nil)
	defer one.Close()
	two := newPipelineOn(t, testConfig(), Deps{Backends: []backend.Backend{streamsDouble{packedDouble{newResidentDouble(t)}}}, Keys: BenchKeys{}}, nil)
	defer two.Close()
	if s := two.devices[0].caps.streams; s != 2 {
		t.Fatalf("device caps: %d streams, want 2", s)
	}
	if got, want := two.deviceEntryBytes(two.devices[0], h)-one.deviceEntryBytes(one.devices[0], h), proofPoolBytes(h.Counts.Sizes); got != want {
		t.Fatalf("two streams reserve %d more bytes than one, want one more proof buffer set (%d)", got, want)
	}
	res := await(t, submit(t, two, bitsJob(5, 6, 7)))
	if len(res.Proofs) != 3 {
		t.Fatalf("%d proofs, want 3", len(res.Proofs))
	}
}
