package groth16

// SetStreamChunkPoints sets the read-back chunk of WriteParams for a test and returns the
// function that restores it.
func SetStreamChunkPoints(n int) (restore func()) {
	old := streamChunkPoints
	streamChunkPoints = n
	return func() { streamChunkPoints = old }
}
