//go:build !linux

package srs

// freeSpace is unknown here: the check before a fetch is skipped, and a full disk is
// reported when a write fails.
func freeSpace(string) (int64, bool) { return 0, false }
