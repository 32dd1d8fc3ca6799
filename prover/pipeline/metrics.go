package pipeline

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the pipeline's Prometheus series (snarkpipe_pipeline_*, snarkpipe_srs_*,
// snarkpipe_memory_*). They live on the registry given in Deps (a private one if nil).
type metrics struct {
	jobs       *prometheus.CounterVec   // kind, outcome
	partitions *prometheus.CounterVec   // kind, outcome
	stage      *prometheus.HistogramVec // stage
	srsLoads   *prometheus.CounterVec   // arena
	srsLoad    *prometheus.HistogramVec // arena
	recordings *prometheus.CounterVec   // outcome
	// recordingSaves counts background saves of new recordings (ok, failed).
	recordingSaves *prometheus.CounterVec
	pins           *prometheus.CounterVec // outcome
	keyPins        *prometheus.CounterVec // outcome
}

func newMetrics(reg prometheus.Registerer, p *Pipeline) (*metrics, error) {
	buckets := prometheus.ExponentialBuckets(0.001, 2, 20) // 1 ms … ~9 min
	m := &metrics{
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_pipeline_jobs_total", Help: "Jobs finished, by kind and outcome.",
		}, []string{"kind", "outcome"}),
		partitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_pipeline_partitions_total", Help: "Partitions finished, by kind and outcome.",
		}, []string{"kind", "outcome"}),
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "snarkpipe_pipeline_stage_seconds", Help: "Time per partition in each stage.", Buckets: buckets,
		}, []string{"stage"}),
		srsLoads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_srs_loads_total", Help: "Circuit residency loads (host: recording + parameters; device: proving key).",
		}, []string{"arena"}),
		srsLoad: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "snarkpipe_srs_load_seconds", Help: "Time to make a circuit resident.", Buckets: buckets,
		}, []string{"arena"}),
		recordings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_pipeline_recordings_total", Help: "Recording lookups: hit (reused), recorded, corrupt (re-recorded), unreadable (the store could not be read: recorded).",
		}, []string{"outcome"}),
		recordingSaves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_pipeline_recording_saves_total", Help: "New recordings written to the recordings directory in the background: ok, or failed (kept in memory only; the next process records again).",
		}, []string{"outcome"}),
		pins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_pipeline_slot_pins_total", Help: "Working-set slots page-locked for uploads (ok, or failed: uploaded from pageable memory).",
		}, []string{"outcome"}),
		keyPins: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "snarkpipe_pipeline_key_pins_total", Help: "Proving-key vectors page-locked on the host (pin_keys): ok, or failed (loaded from pageable memory).",
		}, []string{"outcome"}),
	}
	collectors := []prometheus.Collector{m.jobs, m.partitions, m.stage, m.srsLoads, m.srsLoad, m.recordings, m.recordingSaves, m.pins, m.keyPins,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "snarkpipe_pipeline_queued_partitions", Help: "Partitions waiting for synthesis.",
		}, func() float64 { return float64(p.runq.len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "snarkpipe_pipeline_handoff_partitions", Help: "Synthesized partitions waiting for a device worker.",
		}, func() float64 { return float64(p.handoff.len()) }),
	}
	for _, a := range p.arenas() {
		labels := prometheus.Labels{"arena": a.name}
		collectors = append(collectors,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "snarkpipe_memory_budget_bytes", Help: "Memory budget.", ConstLabels: labels,
			}, func() float64 { return float64(a.capacity) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "snarkpipe_memory_used_bytes", Help: "Memory reserved: resident circuits, working sets, pooled buffers.", ConstLabels: labels,
			}, func() float64 { a.mu.Lock(); defer a.mu.Unlock(); return float64(a.used) }),
		)
	}
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			for _, done := range collectors {
				reg.Unregister(done)
			}
			return nil, err
		}
	}
	p.unregister = func() {
		for _, c := range collectors {
			reg.Unregister(c)
		}
	}
	return m, nil
}
