package cuda

import (
	"errors"
	"fmt"
	"unsafe"
)

// DeviceProps mirrors capi.h's snarkpipe_device_props: what the backend reads of a device
// to choose its arithmetic and kernel parameters. Clocks are in kHz, sizes in bytes.
type DeviceProps struct {
	CCMajor, CCMinor  int64
	SMs               int64
	TotalMem          int64
	ClockKHz          int64
	MemClockKHz       int64
	MemBusBits        int64
	FP32PerFP64       int64 // cudaDevAttrSingleToDoublePrecisionPerfRatio: 2 on A100/H100/H200, 32 or 64 on consumer cards
	SmemPerBlockOptin int64
	SmemPerSM         int64
	L2Bytes           int64
	RegsPerSM         int64
	ThreadsPerSM      int64
	PCIBus, PCIDevice int64
	KernelBinary      int64 // the SASS version the device runs the library's kernels as (10·major + minor)
	KernelPTX         int64 // the PTX version they come from; below KernelBinary: compiled by the driver (JIT)
}

// Arch is the device's compute capability as "sm_90".
func (p DeviceProps) Arch() string { return fmt.Sprintf("sm_%d%d", p.CCMajor, p.CCMinor) }

// MemBandwidth is the memory bandwidth the clock and bus width give (double data rate),
// in bytes per second; 0 when the device does not report them.
func (p DeviceProps) MemBandwidth() float64 {
	return 2 * float64(p.MemClockKHz) * 1e3 * float64(p.MemBusBits) / 8
}

// JIT reports whether the driver compiled the library's PTX for this device (no machine
// code for its architecture in the library).
func (p DeviceProps) JIT() bool { return p.KernelPTX != 0 && p.KernelPTX < p.KernelBinary }

// Props reads a device's properties (ErrMissingSymbol from a library built before the
// probe existed).
func (l *Lib) Props(ordinal int) (DeviceProps, error) {
	var p DeviceProps
	if l.deviceProps == nil {
		return p, fmt.Errorf("device_props_get: %w", ErrMissingSymbol)
	}
	err := l.check("device_props_get", l.deviceProps(int32(ordinal), &p, uint64(unsafe.Sizeof(p))))
	return p, err
}

// BuildInfo says what the library was built for (CUDA version, architectures); empty
// from a library built before it existed.
func (l *Lib) BuildInfo() string {
	if l.buildInfo == nil {
		return ""
	}
	buf := make([]byte, 256)
	if err := l.check("build_info", l.buildInfo(&buf[0], uint64(len(buf)))); err != nil {
		return ""
	}
	n := 0
	for n < len(buf) && buf[n] != 0 {
		n++
	}
	return string(buf[:n])
}

// Ledger is a device's memory ledger: every byte this library allocates on it.
type Ledger struct {
	Limit uint64 // 0: none
	Used  uint64 // allocated now
	Peak  uint64 // the most allocated since the last ResetPeak
}

// ErrOutOfMemory matches (errors.Is) a failed call whose cause is device memory: the
// device's own, or the ledger's limit (SetMemoryLimit).
var ErrOutOfMemory = errors.New("cuda: device out of memory")

// Is makes errors.Is(err, ErrOutOfMemory) hold for out-of-memory statuses.
func (e *StatusError) Is(target error) bool {
	return target == ErrOutOfMemory && e.Code == CodeNoMemory
}

// SetMemoryLimit caps what the library may allocate on a device (0 removes the cap); an
// allocation past it fails with an out-of-memory status, as on a card of that size.
// It fails if more than limit bytes are allocated there now.
func (l *Lib) SetMemoryLimit(ordinal int, limit uint64) error {
	if l.deviceSetLimit == nil {
		return fmt.Errorf("device_set_limit: %w", ErrMissingSymbol)
	}
	return l.check("device_set_limit", l.deviceSetLimit(int32(ordinal), limit))
}

// Ledger returns a device's memory ledger.
func (l *Lib) Ledger(ordinal int) (Ledger, error) {
	var g Ledger
	if l.deviceLedger == nil {
		return g, fmt.Errorf("device_ledger: %w", ErrMissingSymbol)
	}
	err := l.check("device_ledger", l.deviceLedger(int32(ordinal), &g.Limit, &g.Used, &g.Peak))
	return g, err
}

// ResetPeak sets a device's ledger peak to what is allocated now.
func (l *Lib) ResetPeak(ordinal int) error {
	if l.deviceResetPk == nil {
		return fmt.Errorf("device_reset_peak: %w", ErrMissingSymbol)
	}
	return l.check("device_reset_peak", l.deviceResetPk(int32(ordinal)))
}

// Arith is the Fr product of a context's NTTs and quotient (capi.h SNARKPIPE_ARITH_*).
type Arith int32

const (
	ArithFP64 Arith = 0 // products on the FP64 pipe (dpf.cuh)
	ArithInt  Arith = 1 // the integer CIOS product (field.cuh)
)

func (a Arith) String() string {
	switch a {
	case ArithFP64:
		return "fp64"
	case ArithInt:
		return "int"
	}
	return fmt.Sprintf("arith(%d)", int32(a))
}

// SetArith selects a context's Fr product. A library built before the choice existed
// has the FP64 product only: asking it for another fails with ErrMissingSymbol.
func (l *Lib) SetArith(c Ctx, a Arith) error {
	if l.ctxSetArith == nil {
		if a == ArithFP64 {
			return nil
		}
		return fmt.Errorf("ctx_set_arith: %w", ErrMissingSymbol)
	}
	return l.check("ctx_set_arith", l.ctxSetArith(c, int32(a)))
}
