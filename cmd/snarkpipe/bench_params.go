package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// paramsWriter writes each circuit's benchmark key once (--write-params) as a bellperson
// .params + .vk pair with the dev trailer, under the official file names in dir: a daemon
// on that directory with allow_dev_params then loads it through the official file path.
// A key made on a GPU is read back from the device in chunks as it is written.
type paramsWriter struct {
	dir    string
	names  map[prover.CircuitID]string
	report func(format string, args ...any)

	mu      sync.Mutex
	written map[prover.CircuitID]bool
}

func newParamsWriter(dir string, report func(format string, args ...any)) *paramsWriter {
	return &paramsWriter{dir: dir, names: officialNames(), report: report, written: map[prover.CircuitID]bool{}}
}

// claim says whether id's files are still to be written, and marks them taken: with
// several devices only the first key made is written.
func (w *paramsWriter) claim(id prover.CircuitID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.written[id] {
		return false
	}
	w.written[id] = true
	return true
}

// provingKey writes pk (a key resident on its backend) unless id's files were written.
func (w *paramsWriter) provingKey(id prover.CircuitID, pk *groth16.ProvingKey) error {
	if !w.claim(id) {
		return nil
	}
	return w.write(id, srs.KeyFile{VK: &pk.Params.VK, Size: pk.ParamsFileSize(), Write: pk.WriteParams})
}

// params writes host parameters (--host-keys) unless id's files were written.
func (w *paramsWriter) params(id prover.CircuitID, p *groth16.Params) error {
	if !w.claim(id) {
		return nil
	}
	return w.write(id, srs.KeyFile{VK: &p.VK, Size: p.FileSize(), Write: p.WriteTo})
}

func (w *paramsWriter) write(id prover.CircuitID, k srs.KeyFile) error {
	name, ok := w.names[id]
	if !ok {
		return fmt.Errorf("bench: --write-params: no official parameter file name for circuit %s", id)
	}
	w.report("writing parameters of %s: %s (%s) ...", id, name, fmtBytes(uint64(k.Size)))
	t := time.Now()
	path, vk, err := srs.WriteKeyFiles(w.dir, name, k)
	if err != nil {
		return fmt.Errorf("bench: --write-params: %w", err)
	}
	took := time.Since(t)
	w.report("wrote %s and %s in %s (%.2f GB/s; INSECURE benchmark key with the dev trailer)",
		path, vk, fmtDur(took), float64(k.Size)/1e9/max(took.Seconds(), 1e-9))
	return nil
}
