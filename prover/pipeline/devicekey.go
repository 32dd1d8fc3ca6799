package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// deviceKey is a circuit resident on one device: its proving key and, on a device with
// the pre-compiled path (backend.ShapeEvaluator), its recorded shape beside it. Both share
// one arena entry, so they are loaded, accounted, evicted and closed together.
type deviceKey struct {
	pk *groth16.ProvingKey
	rc *groth16.ResidentCircuit // nil: the device proves from host-evaluated rows
	// ownsParams: the key came from a KeySource and its Params (the verifying key, and
	// for host-made keys the vectors) belong to it; otherwise they are the host entry's.
	ownsParams bool
}

// vk is the verifying key the proofs of this key are checked against.
func (k *deviceKey) vk() *groth16.VerifyingKey { return &k.pk.Params.VK }

// close releases the resident shape, then the key's bases, then the Params it owns.
func (k *deviceKey) close() error {
	var errs []error
	if k.rc != nil {
		errs = append(errs, k.rc.Close())
	}
	errs = append(errs, k.pk.Close())
	if k.ownsParams && k.pk.Params != nil {
		errs = append(errs, k.pk.Params.Close())
	}
	return errors.Join(errs...)
}

// loadDeviceKey makes st's circuit resident on d: the proving key (from the host
// parameters, or made on the device by the KeySource; the vectors its memory tier streams
// in page-locked host memory) and, on a device with the pre-compiled path, the recorded
// shape.
func (p *Pipeline) loadDeviceKey(ctx context.Context, d *device, st *circuitState, h Hint) (*deviceKey, error) {
	counts := st.shape.Counts()
	pl := p.placementOf(d, h) // as admission counted it
	var k *deviceKey
	if p.deps.Keys != nil {
		pk, err := p.makeKey(ctx, d, st, pl.key)
		if err != nil {
			return nil, fmt.Errorf("pipeline: proving key of %s on %s: %w", st.id, d.backend.Name(), err)
		}
		if pk == nil || pk.Params == nil {
			return nil, fmt.Errorf("pipeline: key source gave %s no proving key with a verifying key", st.id)
		}
		k = &deviceKey{pk: pk, ownsParams: true}
		if pk.Counts != counts || len(pk.Params.VK.IC) != counts.NumInputs {
			k.close()
			return nil, fmt.Errorf("pipeline: key source gave %s a key for counts %+v (%d IC points), the recording has %+v",
				st.id, pk.Counts, len(pk.Params.VK.IC), counts)
		}
	} else {
		pk, err := groth16.NewProvingKeyIn(d.backend, st.params, counts, pl.key)
		if err != nil {
			return nil, err
		}
		k = &deviceKey{pk: pk}
	}
	if d.caps.resident {
		load := k.pk.LoadShape
		if pl.shape {
			load = k.pk.LoadShapeStreamed
		}
		rc, err := load(st.shape)
		if err != nil {
			k.close()
			return nil, err
		}
		k.rc = rc
		// The device entry's reservation already counts the proof buffers
		// (deviceEntryBytes): allocating them here moves their cost out of the first
		// proof. A failure is not the load's: that proof allocates them again.
		if err := rc.ReserveBuffers(); err != nil && p.circuits.log != nil {
			p.circuits.log.Warn("pipeline: reserving proof buffers at load failed; the first proof allocates them", "circuit", st.id, "device", d.backend.Name(), "err", err)
		}
	}
	return k, nil
}

// deviceCaps are a device's optional proving capabilities.
type deviceCaps struct {
	resident bool // backend.ShapeEvaluator: A·z, B·z, C·z on the device from z alone
	// streamKeys: backend.KeyStreamer whose library has the streamed MSMs: key vectors
	// may stay in host memory (tiers.go)
	streamKeys bool
	// streamShape: backend.ShapeStreamer whose library evaluates sides from host memory
	streamShape bool
	packed      bool // backend.PackedShapeEvaluator: z handed over bit-packed
	streams     int  // backend.ConcurrentProver: resident proofs at once (1 without it)
}

func capsOf(be backend.Backend) deviceCaps {
	_, resident := be.(backend.ShapeEvaluator)
	_, packed := be.(backend.PackedShapeEvaluator)
	streams := 1
	if cp, ok := be.(backend.ConcurrentProver); ok && cp.ProofStreams() > 1 {
		streams = cp.ProofStreams()
	}
	ks, ok := be.(backend.KeyStreamer)
	ss, sok := be.(backend.ShapeStreamer)
	return deviceCaps{resident: resident, packed: packed, streams: streams, streamKeys: ok && ks.StreamsKeys(),
		streamShape: sok && ss.ShapeStreamable()}
}

// makeKey asks the KeySource for st's key on d and moves the vectors named by host into
// host memory. A key source that makes keys on the device (the bench's) needs the whole
// key there at once: on a backend with a memory cap (backend.CapLifter) that is done with
// the cap lifted, and the cap is set again once the streamed vectors have left, so that
// proving runs under it (the cap stands for a smaller card, whose provider would load
// parameter files into host memory instead).
func (p *Pipeline) makeKey(ctx context.Context, d *device, st *circuitState, host backend.KeyParts) (*groth16.ProvingKey, error) {
	var pk *groth16.ProvingKey
	build := func() error {
		var err error
		if pk, err = p.deps.Keys.ProvingKey(ctx, st.id, st.shape, d.backend); err != nil || pk == nil || host == 0 {
			return err
		}
		if err := pk.Stream(host); err != nil {
			pk.Close()
			if pk.Params != nil {
				pk.Params.Close()
			}
			pk = nil
			return err
		}
		return nil
	}
	var err error
	if cl, ok := d.backend.(backend.CapLifter); ok && host != 0 {
		err = cl.WithoutCap(build)
	} else {
		err = build()
	}
	return pk, err
}
