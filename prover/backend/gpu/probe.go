package gpu

import (
	"os"

	"github.com/snarkpipe/snarkpipe/cuda"
)

// Probe is what the CUDA library sees on this machine, for `snarkpipe --version`.
type Probe struct {
	// Library is the libsnarkpipe_cuda.so found ("" when there is none).
	Library string
	// Build says what the library was built for (CUDA version, architectures).
	Build string
	// Devices are the GPUs' names by ordinal.
	Devices []string
	// Err says why there is no GPU (it wraps ErrNoCUDA when the library or a device is
	// missing).
	Err error
}

// ProbeDevices loads the CUDA library from its usual places and names the devices,
// without opening a context on any of them.
func ProbeDevices() Probe {
	var p Probe
	for _, c := range cuda.Candidates() {
		if _, err := os.Stat(c); err == nil {
			p.Library = c
			break
		}
	}
	lib, err := cuda.Load(p.Library)
	if err != nil {
		p.Err = err
		return p
	}
	p.Library, p.Build = lib.Path, lib.BuildInfo()
	n, err := lib.DeviceCount()
	if err != nil {
		p.Err = err
		return p
	}
	for i := range n {
		info, err := lib.Device(i)
		if err != nil {
			p.Err = err
			return p
		}
		p.Devices = append(p.Devices, info.Name)
	}
	return p
}
