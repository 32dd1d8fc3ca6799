package pipeline

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/snarkpipe/snarkpipe/prover"
	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
)

// meetingKeys is BenchKeys whose calls wait, up to a bound, until want of them are in
// progress at once; met closes when they are (calls one after the other never meet).
type meetingKeys struct {
	want   int
	mu     sync.Mutex
	inside int
	met    chan struct{}
}

func (k *meetingKeys) ProvingKey(ctx context.Context, id prover.CircuitID, shape *r1cs.Shape, be backend.Backend) (*groth16.ProvingKey, error) {
	k.mu.Lock()
	k.inside++
	if k.inside == k.want {
		close(k.met)
	}
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.inside--
		k.mu.Unlock()
	}()
	select {
	case <-k.met:
	case <-time.After(10 * time.Second):
	}
	return BenchKeys{}.ProvingKey(ctx, id, shape, be)
}

// TestPreloadLoadsDevicesAtOnce: Preload makes a circuit's keys on every device at the
// same time, not one device after the other, and reports each device's load.
func TestPreloadLoadsDevicesAtOnce(t *testing.T) {
	keys := &meetingKeys{want: 2, met: make(chan struct{})}
	devs := []backend.Backend{packedDouble{newResidentDouble(t)}, packedDouble{newResidentDouble(t)}}
	p := newPipelineOn(t, testConfig(), Deps{Backends: devs, Keys: keys}, nil)
	defer p.Close()
	info, err := p.Preload(context.Background(), bitsJob(0).Circuits[0])
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-keys.met:
	default:
		t.Fatal("the two devices' keys were not made at the same time")
	}
	if len(info.KeyLoads) != 2 || info.KeyLoads[0] <= 0 || info.KeyLoads[1] <= 0 || info.AlreadyResident {
		t.Fatalf("preload info %+v: want a key load on each of 2 devices", info)
	}
	for i, d := range p.Status().Devices {
		if len(d.Resident) != 1 {
			t.Fatalf("device %d holds %d circuits after the preload, want 1", i, len(d.Resident))
		}
	}
}
