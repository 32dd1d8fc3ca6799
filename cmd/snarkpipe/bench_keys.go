package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/pipeline"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// benchKeys wraps the pipeline's key source for `bench`: it times every key it makes and
// keeps a copy of each circuit's verifying key, which the Service (and the snap check)
// verify the returned proof bytes against. The keys are INSECURE benchmark keys (known
// toxic waste) and live only in this process, unless --write-params writes them (once per
// circuit) as parameter files.
type benchKeys struct {
	inner  pipeline.KeySource
	params pipeline.ParamsSource // --host-keys: the keys as host parameters
	writer *paramsWriter         // --write-params; nil: nothing written

	mu   sync.Mutex
	vks  map[prover.CircuitID]*groth16.VerifyingKey
	made []keyMade
}

// keyMade is one key generation: which circuit, on which device, how long.
type keyMade struct {
	Circuit prover.CircuitID `json:"circuit"`
	Device  string           `json:"device"`
	Took    time.Duration    `json:"took_ns"`
}

func newBenchKeys(inner pipeline.KeySource) *benchKeys {
	return &benchKeys{inner: inner, vks: make(map[prover.CircuitID]*groth16.VerifyingKey)}
}

// ProvingKey makes the key with the wrapped source and remembers its verifying key. Every
// device must get the same verifying key for one circuit (the pipeline verifies proofs of
// any device against it); a source that breaks this is refused here.
func (k *benchKeys) ProvingKey(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	start := time.Now()
	pk, err := k.inner.ProvingKey(ctx, id, shape, be)
	took := time.Since(start)
	if err != nil {
		return nil, err
	}
	if pk == nil || pk.Params == nil {
		return pk, nil // the pipeline refuses it with its own error
	}
	if err := k.remember(id, &pk.Params.VK, be.Name(), took); err != nil {
		pk.Close()
		return nil, err
	}
	if k.writer != nil {
		if err := k.writer.provingKey(id, pk); err != nil {
			pk.Close()
			return nil, err
		}
	}
	return pk, nil
}

// Params makes a circuit's benchmark parameters with the wrapped parameter source (the
// --host-keys path), timed, and remembers its verifying key as ProvingKey does.
func (k *benchKeys) Params(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape) (*groth16.Params, error) {
	start := time.Now()
	p, err := k.params.Params(ctx, id, shape)
	took := time.Since(start)
	if err != nil {
		return nil, err
	}
	if err := k.remember(id, &p.VK, "host", took); err != nil {
		p.Close()
		return nil, err
	}
	if k.writer != nil {
		if err := k.writer.params(id, p); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// remember keeps vk as id's verifying key, refusing another one than an earlier key's.
func (k *benchKeys) remember(id prover.CircuitID, vk *groth16.VerifyingKey, where string, took time.Duration) error {
	c := copyVK(vk)
	k.mu.Lock()
	defer k.mu.Unlock()
	if prev, ok := k.vks[id]; ok && !prev.Equal(c) {
		return fmt.Errorf("bench: the key source gave %s on %s another verifying key than before", id, where)
	}
	k.vks[id] = c
	k.made = append(k.made, keyMade{Circuit: id, Device: where, Took: took})
	return nil
}

// VerifyingKey returns the verifying key of a circuit whose key has been made.
func (k *benchKeys) VerifyingKey(id prover.CircuitID) (*groth16.VerifyingKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	vk, ok := k.vks[id]
	if !ok {
		return nil, fmt.Errorf("bench: no benchmark key made for %s yet", id)
	}
	return vk, nil
}

// generations returns the key generations so far.
func (k *benchKeys) generations() []keyMade {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.made)
}

// copyVK deep-copies a verifying key: the pipeline closes the key's Params on eviction.
func copyVK(vk *groth16.VerifyingKey) *groth16.VerifyingKey {
	c := *vk
	c.IC = slices.Clone(vk.IC)
	return &c
}
