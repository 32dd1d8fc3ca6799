package gpu

import (
	"errors"
	"fmt"

	"github.com/snarkpipe/snarkpipe/cuda"
)

// Arith is the gpu_arith setting: which Fr product the NTTs and the quotient use.
type Arith string

const (
	// ArithAuto chooses from the device (chooseArith): FP64 products where FP64 is fast.
	ArithAuto Arith = "auto"
	// ArithInt forces the integer (CIOS) product, which every GPU runs at full rate.
	ArithInt Arith = "int"
	// ArithFP64 forces the products on the FP64 pipe.
	ArithFP64 Arith = "fp64"
)

// ParseArith reads a gpu_arith value ("" is auto).
func ParseArith(s string) (Arith, error) {
	switch a := Arith(s); a {
	case "", ArithAuto:
		return ArithAuto, nil
	case ArithInt, ArithFP64:
		return a, nil
	}
	return "", fmt.Errorf("gpu arithmetic %q: want auto, int or fp64", s)
}

// fastFP64Ratio: the FP32:FP64 throughput ratio up to which FP64 products pay. The FP64
// product measured 1.47× the integer one for Fr on the H200 (ratio 2); on consumer cards
// (ratio 32 or 64) the FP64 pipe is 16 to 32 times slower than there relative to the
// integer pipe, so the integer product wins by far.
const fastFP64Ratio = 4

// ArithChoice is the arithmetic a backend runs and the reason, as reported by the
// bench, status, the daemon's log and the cuzk GetStatus GPU entry.
type ArithChoice struct {
	Arith  cuda.Arith
	Reason string
}

func (c ArithChoice) String() string { return c.Arith.String() + " (" + c.Reason + ")" }

// chooseArith picks the Fr product for a device: want, unless auto; with auto, FP64
// products where the device runs FP64 at a quarter of the FP32 rate or better (A100,
// H100/H200, B200), the integer product elsewhere (consumer cards, and devices that do
// not report the ratio). probed is false for a library without the device probe.
func chooseArith(p cuda.DeviceProps, probed bool, want Arith) ArithChoice {
	switch want {
	case ArithInt:
		return ArithChoice{cuda.ArithInt, "forced by gpu_arith = int"}
	case ArithFP64:
		return ArithChoice{cuda.ArithFP64, "forced by gpu_arith = fp64"}
	}
	switch {
	case !probed:
		return ArithChoice{cuda.ArithFP64, "auto: a library without the device probe has only the FP64 product"}
	case p.FP32PerFP64 <= 0:
		return ArithChoice{cuda.ArithInt, fmt.Sprintf("auto: %s does not report its FP64 rate", p.Arch())}
	case p.FP32PerFP64 <= fastFP64Ratio:
		return ArithChoice{cuda.ArithFP64, fmt.Sprintf("auto: FP64 at 1/%d of the FP32 rate on %s", p.FP32PerFP64, p.Arch())}
	}
	return ArithChoice{cuda.ArithInt, fmt.Sprintf("auto: FP64 at only 1/%d of the FP32 rate on %s", p.FP32PerFP64, p.Arch())}
}

// probe reads the device's properties; a library built before the probe existed gives
// probed = false and no error.
func probe(lib *cuda.Lib, device int) (p cuda.DeviceProps, probed bool, err error) {
	p, err = lib.Props(device)
	if errors.Is(err, cuda.ErrMissingSymbol) {
		return p, false, nil
	}
	return p, err == nil, err
}

// DeviceReport is what a backend tells about its device and its choices.
type DeviceReport struct {
	Name        string
	Props       cuda.DeviceProps
	Probed      bool   // Props were read (a library built before the probe leaves them zero)
	Build       string // what the library was built for (cuda.Lib.BuildInfo)
	Arith       ArithChoice
	MemoryLimit uint64 // the device-memory cap (Config.MemoryLimit; 0: none)
}

// Summary is a one-line description: device, architecture and code, memory and cap,
// arithmetic and its reason.
func (r DeviceReport) Summary() string {
	s := r.Name
	if r.Probed {
		code := fmt.Sprintf("sm_%d code", r.Props.KernelBinary)
		if r.Props.JIT() {
			code = fmt.Sprintf("compute_%d PTX compiled by the driver", r.Props.KernelPTX)
		}
		s += fmt.Sprintf(" (%s, %d SMs, %s)", r.Props.Arch(), r.Props.SMs, code)
	}
	mem := fmt.Sprintf("%.1f GiB", float64(r.Props.TotalMem)/(1<<30))
	if r.MemoryLimit > 0 {
		mem += fmt.Sprintf(", capped at %.1f GiB", float64(r.MemoryLimit)/(1<<30))
	}
	return s + "; memory " + mem + "; arithmetic " + r.Arith.String()
}

// Report describes the backend's device and its choices.
func (b *Backend) Report() DeviceReport {
	props := b.props
	if props.TotalMem == 0 {
		props.TotalMem = int64(b.info.TotalMem)
	}
	return DeviceReport{Name: b.info.Name, Props: props, Probed: b.probed, Build: b.lib.BuildInfo(), Arith: b.arith, MemoryLimit: b.memLimit}
}

// Ledger returns the device's memory ledger: what the library holds on the device now,
// its peak and the cap (every backend of the process on this device counts together).
func (b *Backend) Ledger() (cuda.Ledger, error) {
	g, err := b.lib.Ledger(b.device)
	return g, wrap("memory ledger", err)
}

// ResetPeak starts the ledger's peak again from what is allocated now.
func (b *Backend) ResetPeak() error { return wrap("memory ledger", b.lib.ResetPeak(b.device)) }
