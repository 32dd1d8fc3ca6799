package pipeline

import "fmt"

// Priority orders work: a higher priority's queued partitions are taken before any queued
// partition of a lower one (work already running is never interrupted). The mapping of
// proof kinds to priorities is the caller's business.
type Priority int8

const (
	Low Priority = iota
	Normal
	High
	Critical
)

func (p Priority) String() string {
	switch p {
	case Low:
		return "low"
	case Normal:
		return "normal"
	case High:
		return "high"
	case Critical:
		return "critical"
	}
	return fmt.Sprintf("priority(%d)", int8(p))
}

// Valid reports whether p is one of the four priorities.
func (p Priority) Valid() bool { return p >= Low && p <= Critical }
