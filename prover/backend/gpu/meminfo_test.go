package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/cuda"
)

// TestMemInfo: on a GPU, total is the device's memory and 0 < free ≤ total, and memory
// held by the backend shows as used; the host emulation has no device memory to report
// and says so.
func TestMemInfo(t *testing.T) {
	b := testBackend(t)
	if err := b.lib.Trim(b.ctx); err != nil { // pooled memory would hide the allocation below
		t.Fatal(err)
	}
	free, total, err := b.MemInfo()
	if errors.Is(err, cuda.ErrMissingSymbol) {
		t.Skipf("library built before snarkpipe_device_mem_info: %v", err)
	}
	if strings.Contains(b.lib.Path, "emu") {
		if err == nil || !strings.Contains(err.Error(), "emulation") {
			t.Fatalf("emulation: MemInfo = %d, %d, %v; want the emulation error", free, total, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if total == 0 || free == 0 || free > total {
		t.Fatalf("free %d, total %d", free, total)
	}
	if total > b.Device().TotalMem+(1<<30) || total+(1<<30) < b.Device().TotalMem {
		t.Fatalf("total %d, device reports %d", total, b.Device().TotalMem)
	}
	const bytes = 1 << 30
	p, err := b.lib.Alloc(b.ctx, bytes)
	if err != nil {
		t.Fatal(err)
	}
	defer b.lib.Free(b.ctx, p)
	after, _, err := b.MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	if after > free-bytes/2 {
		t.Fatalf("free %d before and %d after allocating %d bytes", free, after, bytes)
	}
}
