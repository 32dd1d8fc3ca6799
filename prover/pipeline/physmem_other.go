//go:build !linux

package pipeline

import "errors"

func physicalMemory() (int64, error) {
	return 0, errors.New("physical memory size is unknown on this system")
}
