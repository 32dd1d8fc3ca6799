package pipeline

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/srs"
	"github.com/snarkpipe/snarkpipe/prover/srs/srstest"
)

// dashboardPath is the Grafana dashboard shipped with the operator's guide.
const dashboardPath = "../../docs/contrib/grafana/snarkpipe.json"

// TestGrafanaDashboardMetrics parses the Grafana dashboard and checks that every metric
// its queries name is one the daemon exports: the pipeline's series (registered here as
// the daemon registers them, through Deps.Registerer) and the Go runtime and process
// collectors that cmd/snarkpipe's daemon adds to the same registry. Histograms count with
// their _bucket, _sum and _count series.
func TestGrafanaDashboardMetrics(t *testing.T) {
	exported := exportedSeries(t)

	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s is not JSON: %v", dashboardPath, err)
	}
	queries := dashboardQueries(doc)
	if len(queries) == 0 {
		t.Fatalf("%s has no queries", dashboardPath)
	}
	used := map[string]bool{}
	for _, q := range queries {
		names := promQLMetrics(q)
		if len(names) == 0 {
			t.Errorf("query names no metric (or the test's parser missed it): %s", q)
		}
		for _, n := range names {
			used[n] = true
			if !exported[n] {
				t.Errorf("query uses %s, which the daemon does not export: %s", n, q)
			}
		}
	}
	// The dashboard's reason to exist: jobs, queues, stages and memory.
	for _, want := range []string{"snarkpipe_pipeline_jobs_total", "snarkpipe_pipeline_queued_partitions", "snarkpipe_pipeline_stage_seconds_bucket", "snarkpipe_memory_used_bytes"} {
		if !used[want] {
			t.Errorf("dashboard does not query %s", want)
		}
	}
	t.Logf("%d queries over %d metrics", len(queries), len(used))
}

// exportedSeries starts a pipeline on the CPU backend with a registerer that records the
// descriptors of everything registered, adds the daemon's Go and process collectors, and
// returns every series name that can appear on /metrics.
func exportedSeries(t *testing.T) map[string]bool {
	t.Helper()
	rec := &describingRegisterer{Registerer: prometheus.NewRegistry(), names: map[string]bool{}}
	// As cmd/snarkpipe's startDaemon does before building the pipeline.
	rec.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	p, err := New(testConfig(), Deps{Backends: []backend.Backend{newCPU(t)}, Params: srs.Dev{Cache: srstest.Cache(t)}, Registerer: rec})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if !rec.names["snarkpipe_pipeline_jobs_total"] || !rec.names["process_resident_memory_bytes"] {
		names := make([]string, 0, len(rec.names))
		for n := range rec.names {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Fatalf("descriptor names not read as expected: %v", names)
	}
	return rec.names
}

// describingRegisterer records the series names of every collector registered through it.
type describingRegisterer struct {
	prometheus.Registerer
	names map[string]bool
}

var fqNameRE = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *describingRegisterer) Register(c prometheus.Collector) error {
	_, histogram := c.(*prometheus.HistogramVec)
	if _, ok := c.(prometheus.Histogram); ok {
		histogram = true
	}
	ch := make(chan *prometheus.Desc, 64)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		m := fqNameRE.FindStringSubmatch(d.String())
		if m == nil {
			continue
		}
		r.names[m[1]] = true
		if histogram {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				r.names[m[1]+s] = true
			}
		}
	}
	return r.Registerer.Register(c)
}

func (r *describingRegisterer) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

// dashboardQueries collects every PromQL expression of the dashboard (panel targets at any
// depth) and the metric of each label_values() variable query.
func dashboardQueries(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			s, isString := val.(string)
			switch {
			case k == "expr" && isString:
				out = append(out, s)
			case (k == "query" || k == "definition") && isString && strings.HasPrefix(strings.TrimSpace(s), "label_values("):
				out = append(out, labelValuesMetric(s))
			default:
				out = append(out, dashboardQueries(val)...)
			}
		}
	case []any:
		for _, e := range x {
			out = append(out, dashboardQueries(e)...)
		}
	}
	return out
}

// labelValuesMetric turns Grafana's label_values(metric, label) into the metric alone.
func labelValuesMetric(q string) string {
	inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(q), "label_values("), ")")
	metric, _, _ := strings.Cut(inner, ",")
	return strings.TrimSpace(metric)
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGroupings = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promVars      = regexp.MustCompile(`\$\{?\w+\}?`)
	promIdents    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promKeywords  = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan"}
)

// promQLMetrics names the metrics a PromQL expression reads: identifiers left once string
// literals, label matchers, ranges, grouping clauses and Grafana variables are removed,
// that are neither function calls nor keywords.
func promQLMetrics(expr string) []string {
	s := promStrings.ReplaceAllString(expr, `""`)
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRanges.ReplaceAllString(s, " ")
	s = promGroupings.ReplaceAllString(s, " ")
	s = promVars.ReplaceAllString(s, " ")
	var out []string
	for _, loc := range promIdents.FindAllStringIndex(s, -1) {
		name := s[loc[0]:loc[1]]
		if loc[0] > 0 && (s[loc[0]-1] == '.' || (s[loc[0]-1] >= '0' && s[loc[0]-1] <= '9')) {
			continue // part of a number such as 1e3
		}
		if rest := strings.TrimLeft(s[loc[1]:], " \t\n"); strings.HasPrefix(rest, "(") {
			continue // a function
		}
		if slices.Contains(promKeywords, strings.ToLower(name)) {
			continue
		}
		out = append(out, name)
	}
	return out
}

func TestPromQLMetrics(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (kind, outcome) (rate(snarkpipe_pipeline_jobs_total{instance=~"$instance"}[$__rate_interval])) * 3600`: {"snarkpipe_pipeline_jobs_total"},
		`histogram_quantile(0.95, sum by (le, stage) (rate(x_bucket{a="b"}[5m])))`:                                     {"x_bucket"},
		`a / on (instance) group_left b offset 5m`:                                                                     {"a", "b"},
		`label_replace(up, "dst", "$1", "src", "(.*)") and bool 1e3`:                                                   {"up"},
	} {
		if got := promQLMetrics(expr); !slices.Equal(got, want) {
			t.Errorf("promQLMetrics(%q) = %v, want %v", expr, got, want)
		}
	}
}
