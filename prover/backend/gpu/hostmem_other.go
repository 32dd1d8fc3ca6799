//go:build !linux

package gpu

// mapHost falls back to the Go heap where anonymous mappings are not used.
func mapHost(size uint64) ([]byte, error) { return make([]byte, size), nil }

func unmapHost([]byte) error { return nil }
