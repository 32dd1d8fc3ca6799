package pipeline

import "github.com/snarkpipe/snarkpipe/prover/r1cs"

// recordingSlack is the spare capacity, as a fraction of the used length, that a finished
// recording may keep per buffer. A resident recording lives as long as the process, and
// its spare capacity would be host memory outside every reservation (the hint's
// ShapeBytes counts lengths). The probe counts merged terms, so a recorder it sizes is
// exact; a recorder that grew from empty (no probe: Capacity{}) or was sized otherwise
// is not (raw term counts over-sized PoRep's matrix A by ~38 %). Beyond the slack the
// buffer is copied to its exact size once; within it, the copy would cost more time than
// the memory it returns is worth. Figures: docs/BENCHMARKS.md, "Cold-start recording in
// one pass".
const recordingSlack = 0.05

// trimRecording compacts a just-finished recording (r1cs.Shape.Compact) and returns it.
func trimRecording(s *r1cs.Shape) *r1cs.Shape {
	s.Compact(recordingSlack)
	return s
}
