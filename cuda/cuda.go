// Package cuda loads libsnarkpipe_cuda.so (built by `make cuda` from the .cu units in this
// folder) at run time with purego, so Go binaries build with CGO_ENABLED=0 and without a
// CUDA toolkit. Only prover/backend/gpu imports it.
//
// The C ABI is declared in capi.h. Every call returns a status (NULL on success) that is
// converted here to a *StatusError and freed. Device memory is addressed by DevPtr.
package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// LibName is the file name of the CUDA library.
const LibName = "libsnarkpipe_cuda.so"

// MaxWindows is SNARKPIPE_MAX_WINDOWS: the room an MSM call needs for its window sums.
const MaxWindows = 64

// ErrNoCUDA is returned (wrapped with the reason) when the library or a GPU is missing.
var ErrNoCUDA = errors.New("cuda: not available")

// Status codes of capi.h.
const (
	CodeInvalid  = 1
	CodeCUDA     = 2
	CodeNoMemory = 3
	CodeNoDevice = 4
	CodeInternal = 5
)

// StatusError is a failed library call.
type StatusError struct {
	Func string
	Code int32
	Msg  string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("cuda: %s: %s (code %d)", e.Func, e.Msg, e.Code)
}

// Temporary reports whether retrying later (or after freeing memory) may succeed.
func (e *StatusError) Temporary() bool { return e.Code == CodeNoMemory || e.Code == CodeCUDA }

// DevPtr is a device address.
type DevPtr uintptr

// Ctx is a library context: one device and one stream.
type Ctx uintptr

type cStatus struct {
	code int32
	_    int32
	msg  *byte
}

// Lib is a loaded library. Its methods are safe for concurrent use only as far as the
// underlying context is: callers serialise calls on one Ctx.
type Lib struct {
	Path string

	statusFree func(*cStatus)

	deviceCount func(*int32) *cStatus
	deviceInfo  func(int32, *byte, uint64, *uint64, *int32) *cStatus
	ctxCreate   func(int32, *Ctx) *cStatus
	ctxDestroy  func(Ctx) *cStatus
	ctxLastNs   func(Ctx, *uint64) *cStatus

	memAlloc    func(Ctx, uint64, *DevPtr) *cStatus
	memFree     func(Ctx, DevPtr) *cStatus
	memUpload   func(Ctx, DevPtr, unsafe.Pointer, uint64) *cStatus
	memDownload func(Ctx, unsafe.Pointer, DevPtr, uint64) *cStatus
	memTrim     func(Ctx) *cStatus

	g1MSM      func(Ctx, DevPtr, DevPtr, uint64, uint32, unsafe.Pointer, *uint32, *uint32) *cStatus
	g2MSM      func(Ctx, DevPtr, DevPtr, uint64, uint32, unsafe.Pointer, *uint32, *uint32) *cStatus
	g1BatchAdd func(Ctx, DevPtr, unsafe.Pointer, uint64, unsafe.Pointer) *cStatus
	g2BatchAdd func(Ctx, DevPtr, unsafe.Pointer, uint64, unsafe.Pointer) *cStatus
	g1GenBases func(Ctx, DevPtr, uint64, unsafe.Pointer, uint32, unsafe.Pointer, uint64) *cStatus
	g2GenBases func(Ctx, DevPtr, uint64, unsafe.Pointer, uint32, unsafe.Pointer, uint64) *cStatus

	frNTT        func(Ctx, DevPtr, uint32, unsafe.Pointer, int32) *cStatus
	frScale      func(Ctx, DevPtr, uint32, unsafe.Pointer, unsafe.Pointer, int32) *cStatus
	frBitrev     func(Ctx, DevPtr, uint32) *cStatus
	frQuotient   func(Ctx, DevPtr, DevPtr, DevPtr, uint32, unsafe.Pointer) *cStatus
	frGenScalars func(Ctx, DevPtr, uint64, uint64, uint32, uint32, unsafe.Pointer) *cStatus
	fpMulTest    func(Ctx, unsafe.Pointer, unsafe.Pointer, uint64, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) *cStatus
	frMulTest    func(Ctx, unsafe.Pointer, unsafe.Pointer, uint64, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) *cStatus

	// Optional symbols (spmv.cu): nil in a library built before that unit existed, so an
	// old build keeps loading and only the pre-compiled path reports it missing.
	frCSREval func(Ctx, DevPtr, DevPtr, DevPtr, DevPtr, uint64, DevPtr, DevPtr, uint64) *cStatus
	frGather  func(Ctx, DevPtr, DevPtr, uint64, DevPtr) *cStatus
	frUnpack  func(Ctx, DevPtr, uint64, DevPtr, DevPtr, DevPtr, DevPtr, unsafe.Pointer) *cStatus
	// context.cu, added after the first builds
	deviceMemInfo func(int32, *uint64, *uint64) *cStatus
	ctxMSMStats   func(Ctx, *uint64, *uint64, *uint64) *cStatus
	// fr.cu, added after the first builds
	frNTTCoset func(Ctx, DevPtr, uint32, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, int32) *cStatus
	// context.cu, added for the device probe, the memory ledger and the arithmetic
	deviceProps    func(int32, *DeviceProps, uint64) *cStatus
	buildInfo      func(*byte, uint64) *cStatus
	deviceSetLimit func(int32, uint64) *cStatus
	deviceLedger   func(int32, *uint64, *uint64, *uint64) *cStatus
	deviceResetPk  func(int32) *cStatus
	ctxSetArith    func(Ctx, int32) *cStatus
	// host.cu
	hostRegister   func(Ctx, unsafe.Pointer, uint64) *cStatus
	hostUnregister func(Ctx, unsafe.Pointer) *cStatus
	// setup.cu
	frLagrange func(Ctx, DevPtr, uint32, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer) *cStatus
	frPowers   func(Ctx, DevPtr, uint64, unsafe.Pointer, unsafe.Pointer) *cStatus
	frLincomb  func(Ctx, DevPtr, DevPtr, DevPtr, DevPtr, uint64, unsafe.Pointer) *cStatus
	g1FixedMul func(Ctx, DevPtr, DevPtr, uint64, unsafe.Pointer) *cStatus
	g2FixedMul func(Ctx, DevPtr, DevPtr, uint64, unsafe.Pointer) *cStatus
	// g1.cu, g2.cu: MSMs over bases in host memory (the memory tiers)
	g1MSMHost func(Ctx, unsafe.Pointer, DevPtr, uint64, uint64, uint32, unsafe.Pointer, *uint32, *uint32) *cStatus
	g2MSMHost func(Ctx, unsafe.Pointer, DevPtr, uint64, uint64, uint32, unsafe.Pointer, *uint32, *uint32) *cStatus
	// spmv.cu: a recorded side evaluated from host memory (the memory tiers)
	frCSREvalHost func(Ctx, unsafe.Pointer, unsafe.Pointer, unsafe.Pointer, DevPtr, uint64, DevPtr, DevPtr, uint64, uint64) *cStatus
}

var (
	loadMu sync.Mutex
	loaded = map[string]*Lib{}
)

// Candidates lists where Load looks for the library when path is empty: next to the
// executable, then cuda/build/ under the working directory.
func Candidates() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		out = append(out, filepath.Join(filepath.Dir(exe), LibName))
	}
	out = append(out, filepath.Join("cuda", "build", LibName))
	return out
}

// Load opens the library at path (or the first of Candidates() that exists when path is
// empty), registers its functions and checks that a GPU is present. Libraries are cached
// per resolved path. Errors wrap ErrNoCUDA when the library or a device is missing.
func Load(path string) (*Lib, error) {
	if path == "" {
		for _, c := range Candidates() {
			if _, err := os.Stat(c); err == nil {
				path = c
				break
			}
		}
		if path == "" {
			return nil, fmt.Errorf("%w: %s not found (looked in %v; run `make cuda`)", ErrNoCUDA, LibName, Candidates())
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCUDA, err)
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	if l, ok := loaded[abs]; ok {
		return l, nil
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCUDA, err)
	}
	h, err := purego.Dlopen(abs, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("%w: dlopen %s: %v", ErrNoCUDA, abs, err)
	}
	l := &Lib{Path: abs}
	if err := l.register(h); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoCUDA, abs, err)
	}
	n, err := l.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoCUDA, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: no CUDA device", ErrNoCUDA)
	}
	loaded[abs] = l
	return l, nil
}

func (l *Lib) register(h uintptr) error {
	syms := []struct {
		fn   any
		name string
	}{
		{&l.statusFree, "snarkpipe_status_free"},
		{&l.deviceCount, "snarkpipe_device_count"},
		{&l.deviceInfo, "snarkpipe_device_info"},
		{&l.ctxCreate, "snarkpipe_ctx_create"},
		{&l.ctxDestroy, "snarkpipe_ctx_destroy"},
		{&l.ctxLastNs, "snarkpipe_ctx_last_ns"},
		{&l.memAlloc, "snarkpipe_mem_alloc"},
		{&l.memFree, "snarkpipe_mem_free"},
		{&l.memUpload, "snarkpipe_mem_upload"},
		{&l.memDownload, "snarkpipe_mem_download"},
		{&l.memTrim, "snarkpipe_mem_trim"},
		{&l.g1MSM, "snarkpipe_g1_msm"},
		{&l.g2MSM, "snarkpipe_g2_msm"},
		{&l.g1BatchAdd, "snarkpipe_g1_batch_add"},
		{&l.g2BatchAdd, "snarkpipe_g2_batch_add"},
		{&l.g1GenBases, "snarkpipe_g1_gen_bases"},
		{&l.g2GenBases, "snarkpipe_g2_gen_bases"},
		{&l.frNTT, "snarkpipe_fr_ntt"},
		{&l.frScale, "snarkpipe_fr_scale"},
		{&l.frBitrev, "snarkpipe_fr_bitrev"},
		{&l.frQuotient, "snarkpipe_fr_quotient"},
		{&l.frGenScalars, "snarkpipe_fr_gen_scalars"},
		{&l.fpMulTest, "snarkpipe_fp_mul_test"},
		{&l.frMulTest, "snarkpipe_fr_mul_test"},
	}
	for _, s := range syms {
		p, err := purego.Dlsym(h, s.name)
		if err != nil {
			return fmt.Errorf("missing symbol %s: %v", s.name, err)
		}
		purego.RegisterFunc(s.fn, p)
	}
	optional := []struct {
		fn   any
		name string
	}{
		{&l.frCSREval, "snarkpipe_fr_csr_eval"},
		{&l.frGather, "snarkpipe_fr_gather"},
		{&l.frUnpack, "snarkpipe_fr_unpack"},
		{&l.deviceMemInfo, "snarkpipe_device_mem_info"},
		{&l.ctxMSMStats, "snarkpipe_ctx_msm_stats"},
		{&l.frNTTCoset, "snarkpipe_fr_ntt_coset"},
		{&l.deviceProps, "snarkpipe_device_props_get"},
		{&l.buildInfo, "snarkpipe_build_info"},
		{&l.deviceSetLimit, "snarkpipe_device_set_limit"},
		{&l.deviceLedger, "snarkpipe_device_ledger"},
		{&l.deviceResetPk, "snarkpipe_device_reset_peak"},
		{&l.ctxSetArith, "snarkpipe_ctx_set_arith"},
		{&l.hostRegister, "snarkpipe_host_register"},
		{&l.hostUnregister, "snarkpipe_host_unregister"},
		{&l.frLagrange, "snarkpipe_fr_lagrange"},
		{&l.frPowers, "snarkpipe_fr_powers"},
		{&l.frLincomb, "snarkpipe_fr_lincomb"},
		{&l.g1FixedMul, "snarkpipe_g1_fixed_mul"},
		{&l.g2FixedMul, "snarkpipe_g2_fixed_mul"},
		{&l.g1MSMHost, "snarkpipe_g1_msm_host"},
		{&l.g2MSMHost, "snarkpipe_g2_msm_host"},
		{&l.frCSREvalHost, "snarkpipe_fr_csr_eval_host"},
	}
	for _, s := range optional {
		if p, err := purego.Dlsym(h, s.name); err == nil {
			purego.RegisterFunc(s.fn, p)
		}
	}
	return nil
}

// check converts a returned status to an error and frees it.
func (l *Lib) check(fn string, st *cStatus) error {
	if st == nil {
		return nil
	}
	e := &StatusError{Func: fn, Code: st.code, Msg: cString(st.msg)}
	l.statusFree(st)
	return e
}

func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < 4096; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// DeviceCount returns the number of CUDA devices.
func (l *Lib) DeviceCount() (int, error) {
	var n int32
	err := l.check("device_count", l.deviceCount(&n))
	return int(n), err
}

// DeviceInfo describes one device.
type DeviceInfo struct {
	Name     string
	TotalMem uint64
	SMs      int
}

// Device returns the name, memory and multiprocessor count of a device.
func (l *Lib) Device(ordinal int) (DeviceInfo, error) {
	name := make([]byte, 256)
	var mem uint64
	var sms int32
	if err := l.check("device_info", l.deviceInfo(int32(ordinal), &name[0], uint64(len(name)), &mem, &sms)); err != nil {
		return DeviceInfo{}, err
	}
	n := 0
	for n < len(name) && name[n] != 0 {
		n++
	}
	return DeviceInfo{Name: string(name[:n]), TotalMem: mem, SMs: int(sms)}, nil
}

// MemInfo returns a device's free and total memory now (cudaMemGetInfo): total − free is
// what every process, this library's cached pool included, holds on it.
func (l *Lib) MemInfo(ordinal int) (free, total uint64, err error) {
	if l.deviceMemInfo == nil {
		return 0, 0, fmt.Errorf("device_mem_info: %w", ErrMissingSymbol)
	}
	err = l.check("device_mem_info", l.deviceMemInfo(int32(ordinal), &free, &total))
	return free, total, err
}

// NewCtx creates a context on a device.
func (l *Lib) NewCtx(ordinal int) (Ctx, error) {
	var c Ctx
	err := l.check("ctx_create", l.ctxCreate(int32(ordinal), &c))
	return c, err
}

// FreeCtx destroys a context.
func (l *Lib) FreeCtx(c Ctx) error { return l.check("ctx_destroy", l.ctxDestroy(c)) }

// LastNanos is the device time of the last call on c, from CUDA events.
func (l *Lib) LastNanos(c Ctx) (uint64, error) {
	var ns uint64
	err := l.check("ctx_last_ns", l.ctxLastNs(c, &ns))
	return ns, err
}

// MSMStats counts a context's MSMs since its creation (snarkpipe_ctx_msm_stats).
type MSMStats struct {
	Calls         uint64 // MSMs with scalars other than 0 and 1
	RoundsDropped uint64 // of them, run without the batch-affine pair rounds: their scratch did not fit
	WideBatches   uint64 // of them, with batches of 2^28 sorted entries
}

// MSMStats returns c's MSM counters (ErrMissingSymbol from a library built before them).
func (l *Lib) MSMStats(c Ctx) (MSMStats, error) {
	var s MSMStats
	if l.ctxMSMStats == nil {
		return s, fmt.Errorf("ctx_msm_stats: %w", ErrMissingSymbol)
	}
	err := l.check("ctx_msm_stats", l.ctxMSMStats(c, &s.Calls, &s.RoundsDropped, &s.WideBatches))
	return s, err
}

// Alloc allocates device memory from the context's pool.
func (l *Lib) Alloc(c Ctx, bytes uint64) (DevPtr, error) {
	var p DevPtr
	err := l.check("mem_alloc", l.memAlloc(c, bytes, &p))
	return p, err
}

// Free returns device memory to the pool.
func (l *Lib) Free(c Ctx, p DevPtr) error { return l.check("mem_free", l.memFree(c, p)) }

// Trim releases pooled device memory.
func (l *Lib) Trim(c Ctx) error { return l.check("mem_trim", l.memTrim(c)) }

// Upload copies bytes from host memory src to the device.
func (l *Lib) Upload(c Ctx, dst DevPtr, src unsafe.Pointer, bytes uint64) error {
	return l.check("mem_upload", l.memUpload(c, dst, src, bytes))
}

// Download copies bytes from the device to host memory dst.
func (l *Lib) Download(c Ctx, dst unsafe.Pointer, src DevPtr, bytes uint64) error {
	return l.check("mem_download", l.memDownload(c, dst, src, bytes))
}

// MSM computes the window sums of Σ s_i·P_i (g2 selects the curve); out receives up to
// MaxWindows XYZZ points; it returns the number of windows and their width in bits.
func (l *Lib) MSM(c Ctx, g2 bool, bases, scalars DevPtr, n uint64, windowBits uint32, out unsafe.Pointer) (nwins, bits uint32, err error) {
	if g2 {
		err = l.check("g2_msm", l.g2MSM(c, bases, scalars, n, windowBits, out, &nwins, &bits))
	} else {
		err = l.check("g1_msm", l.g1MSM(c, bases, scalars, n, windowBits, out, &nwins, &bits))
	}
	return nwins, bits, err
}

// HasHostMSM reports whether the library has the MSMs over bases in host memory.
func (l *Lib) HasHostMSM() bool { return l.g1MSMHost != nil && l.g2MSMHost != nil }

// MSMHost is MSM over n bases in host memory (page-locked with HostRegister for the
// copies to overlap the work), copied to the device in chunks of chunk points (0: sized
// from the device's spare memory) through two buffers; the same windows out.
func (l *Lib) MSMHost(c Ctx, g2 bool, bases unsafe.Pointer, scalars DevPtr, n, chunk uint64, windowBits uint32, out unsafe.Pointer) (nwins, bits uint32, err error) {
	if !l.HasHostMSM() {
		return 0, 0, fmt.Errorf("msm_host: %w", ErrMissingSymbol)
	}
	if g2 {
		err = l.check("g2_msm_host", l.g2MSMHost(c, bases, scalars, n, chunk, windowBits, out, &nwins, &bits))
	} else {
		err = l.check("g1_msm_host", l.g1MSMHost(c, bases, scalars, n, chunk, windowBits, out, &nwins, &bits))
	}
	return nwins, bits, err
}

// BatchAdd sums the bases selected by a host bitmap of n bits into one XYZZ point at out.
func (l *Lib) BatchAdd(c Ctx, g2 bool, bases DevPtr, bitmap unsafe.Pointer, n uint64, out unsafe.Pointer) error {
	if g2 {
		return l.check("g2_batch_add", l.g2BatchAdd(c, bases, bitmap, n, out))
	}
	return l.check("g1_batch_add", l.g1BatchAdd(c, bases, bitmap, n, out))
}

// GenBases writes n affine points A[i mod 2^lgA] + B[i >> lgA] to dst.
func (l *Lib) GenBases(c Ctx, g2 bool, dst DevPtr, n uint64, a unsafe.Pointer, lgA uint32, b unsafe.Pointer, nb uint64) error {
	if g2 {
		return l.check("g2_gen_bases", l.g2GenBases(c, dst, n, a, lgA, b, nb))
	}
	return l.check("g1_gen_bases", l.g1GenBases(c, dst, n, a, lgA, b, nb))
}

// NTT transforms 2^lgN elements in place (dit: bit-reversed in, natural out; else natural
// in, bit-reversed out) with the given primitive root.
func (l *Lib) NTT(c Ctx, data DevPtr, lgN uint32, root unsafe.Pointer, dit bool) error {
	return l.NTTTile(c, data, lgN, root, dit, 0)
}

// NTTTile is NTT with the shared-memory tile size forced (log2 10 or 11; 0 = default).
func (l *Lib) NTTTile(c Ctx, data DevPtr, lgN uint32, root unsafe.Pointer, dit bool, tileLog int) error {
	flags := int32(tileLog&0xff) << 8
	if dit {
		flags |= 1
	}
	return l.check("fr_ntt", l.frNTT(c, data, lgN, root, flags))
}

// NTTCoset is NTTTile after x[p] *= c·g^p, the scaling done in the transform's first pass
// (ErrMissingSymbol from a library built before it existed).
func (l *Lib) NTTCoset(c Ctx, data DevPtr, lgN uint32, root, cst, g unsafe.Pointer, dit bool, tileLog int) error {
	if l.frNTTCoset == nil {
		return fmt.Errorf("fr_ntt_coset: %w", ErrMissingSymbol)
	}
	flags := int32(tileLog&0xff) << 8
	if dit {
		flags |= 1
	}
	return l.check("fr_ntt_coset", l.frNTTCoset(c, data, lgN, root, cst, g, flags))
}

// Scale multiplies x[p] by k·g^i (i = p or bitrev(p)); g nil means 1.
func (l *Lib) Scale(c Ctx, data DevPtr, lgN uint32, k, g unsafe.Pointer, bitrevIndex bool) error {
	b := int32(0)
	if bitrevIndex {
		b = 1
	}
	return l.check("fr_scale", l.frScale(c, data, lgN, k, g, b))
}

// Bitrev permutes 2^lgN elements into bit-reversed order in place.
func (l *Lib) Bitrev(c Ctx, data DevPtr, lgN uint32) error {
	return l.check("fr_bitrev", l.frBitrev(c, data, lgN))
}

// Quotient runs bellperson's h computation on device vectors a, b, c.
func (l *Lib) Quotient(c Ctx, a, b, cc DevPtr, lgN uint32, consts unsafe.Pointer) error {
	return l.check("fr_quotient", l.frQuotient(c, a, b, cc, lgN, consts))
}

// GenScalars writes n pseudo-random scalars with the given per-mille zeros and ones.
func (l *Lib) GenScalars(c Ctx, dst DevPtr, n, seed uint64, zeroPermille, onePermille uint32, one unsafe.Pointer) error {
	return l.check("fr_gen_scalars", l.frGenScalars(c, dst, n, seed, zeroPermille, onePermille, one))
}

// FieldOps runs element-wise mul, add, sub on the device (fp selects Fp, else Fr).
func (l *Lib) FieldOps(c Ctx, fp bool, a, b unsafe.Pointer, n uint64, mul, add, sub unsafe.Pointer) error {
	if fp {
		return l.check("fp_mul_test", l.fpMulTest(c, a, b, n, mul, add, sub))
	}
	return l.check("fr_mul_test", l.frMulTest(c, a, b, n, mul, add, sub))
}

// ErrMissingSymbol is returned by calls whose symbol the loaded library lacks (a build
// older than the unit that defines it).
var ErrMissingSymbol = errors.New("cuda: symbol missing from the library (rebuild with `make cuda`)")

// HasSparse reports whether the library has the sparse R1CS products (spmv.cu).
func (l *Lib) HasSparse() bool { return l.frCSREval != nil && l.frGather != nil && l.frUnpack != nil }

// CSR is one side of a recorded R1CS resident on the device (see capi.h
// snarkpipe_fr_csr_eval): row pointers (uint64), columns and coefficient slots (uint32),
// and the Fr coefficient table whose slots 0 and 1 hold 1 and −1.
type CSR struct {
	RowPtr, Col, Coeff, Coeffs DevPtr
	Rows                       uint64
}

// CSREval writes out[j] = (row j of m)·z for j < m.Rows and zero up to nOut.
func (l *Lib) CSREval(c Ctx, m CSR, z, out DevPtr, nOut uint64) error {
	if l.frCSREval == nil {
		return fmt.Errorf("fr_csr_eval: %w", ErrMissingSymbol)
	}
	return l.check("fr_csr_eval", l.frCSREval(c, m.RowPtr, m.Col, m.Coeff, m.Coeffs, m.Rows, z, out, nOut))
}

// CSRHost is a CSR side whose arrays are in host memory (page-locked for speed) over a
// device coefficient table.
type CSRHost struct {
	RowPtr, Col, Coeff unsafe.Pointer
	Coeffs             DevPtr
	Rows               uint64
}

// HasHostCSR reports whether the library evaluates sides from host memory.
func (l *Lib) HasHostCSR() bool { return l.frCSREvalHost != nil }

// CSREvalHost is CSREval over a side in host memory, copied in chunks of rows of at most
// chunkTerms (> 0) terms through two device buffer sets.
func (l *Lib) CSREvalHost(c Ctx, m CSRHost, z, out DevPtr, nOut, chunkTerms uint64) error {
	if l.frCSREvalHost == nil {
		return fmt.Errorf("fr_csr_eval_host: %w", ErrMissingSymbol)
	}
	return l.check("fr_csr_eval_host", l.frCSREvalHost(c, m.RowPtr, m.Col, m.Coeff, m.Coeffs, m.Rows, z, out, nOut, chunkTerms))
}

// Gather writes out[i] = src[idx[i]] for i < n (Fr elements, uint32 indices).
func (l *Lib) Gather(c Ctx, src, idx DevPtr, n uint64, out DevPtr) error {
	if l.frGather == nil {
		return fmt.Errorf("fr_gather: %w", ErrMissingSymbol)
	}
	return l.check("fr_gather", l.frGather(c, src, idx, n, out))
}

// HasSetup reports whether the library has the benchmark-setup helpers (setup.cu).
func (l *Lib) HasSetup() bool {
	return l.frLagrange != nil && l.frPowers != nil && l.frLincomb != nil && l.g1FixedMul != nil && l.g2FixedMul != nil
}

// Lagrange writes scale·ω^j/(τ − ω^j) for j < 2^lgN.
func (l *Lib) Lagrange(c Ctx, dst DevPtr, lgN uint32, omega, tau, scale unsafe.Pointer) error {
	if l.frLagrange == nil {
		return fmt.Errorf("fr_lagrange: %w", ErrMissingSymbol)
	}
	return l.check("fr_lagrange", l.frLagrange(c, dst, lgN, omega, tau, scale))
}

// Powers writes scale·base^j for j < n.
func (l *Lib) Powers(c Ctx, dst DevPtr, n uint64, base, scale unsafe.Pointer) error {
	if l.frPowers == nil {
		return fmt.Errorf("fr_powers: %w", ErrMissingSymbol)
	}
	return l.check("fr_powers", l.frPowers(c, dst, n, base, scale))
}

// Lincomb writes (k[0]·u[i] + k[1]·v[i] + w[i])·k[2] for i < n (k: three Fr elements).
func (l *Lib) Lincomb(c Ctx, dst, u, v, w DevPtr, n uint64, k unsafe.Pointer) error {
	if l.frLincomb == nil {
		return fmt.Errorf("fr_lincomb: %w", ErrMissingSymbol)
	}
	return l.check("fr_lincomb", l.frLincomb(c, dst, u, v, w, n, k))
}

// FixedMul writes s_i·G as affine points (g2 selects the curve) from a 64×16 window table
// of G (see capi.h snarkpipe_g1_fixed_mul).
func (l *Lib) FixedMul(c Ctx, g2 bool, dst, scalars DevPtr, n uint64, table unsafe.Pointer) error {
	if g2 {
		if l.g2FixedMul == nil {
			return fmt.Errorf("g2_fixed_mul: %w", ErrMissingSymbol)
		}
		return l.check("g2_fixed_mul", l.g2FixedMul(c, dst, scalars, n, table))
	}
	if l.g1FixedMul == nil {
		return fmt.Errorf("g1_fixed_mul: %w", ErrMissingSymbol)
	}
	return l.check("g1_fixed_mul", l.g1FixedMul(c, dst, scalars, n, table))
}

// Unpack expands a bit-packed witness into z on the device (see capi.h
// snarkpipe_fr_unpack): field-element values where field is set, else one or zero.
func (l *Lib) Unpack(c Ctx, z DevPtr, n uint64, field, ones, rank, vals DevPtr, one unsafe.Pointer) error {
	if l.frUnpack == nil {
		return fmt.Errorf("fr_unpack: %w", ErrMissingSymbol)
	}
	return l.check("fr_unpack", l.frUnpack(c, z, n, field, ones, rank, vals, one))
}

// HostRegister page-locks bytes of host memory at p (it must stay allocated until
// HostUnregister).
func (l *Lib) HostRegister(c Ctx, p unsafe.Pointer, bytes uint64) error {
	if l.hostRegister == nil {
		return fmt.Errorf("host_register: %w", ErrMissingSymbol)
	}
	return l.check("host_register", l.hostRegister(c, p, bytes))
}

// HostUnregister undoes HostRegister.
func (l *Lib) HostUnregister(c Ctx, p unsafe.Pointer) error {
	if l.hostUnregister == nil {
		return fmt.Errorf("host_unregister: %w", ErrMissingSymbol)
	}
	return l.check("host_unregister", l.hostUnregister(c, p))
}
