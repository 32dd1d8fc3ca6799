package main

import (
	"strings"
	"testing"

	"github.com/snarkpipe/snarkpipe/rpc/api"
)

// TestPrintStatusQualifiesUpdates: SnapDeals proof names equal the V1 seal names, so the
// "serves:" line prefixes them with update: and leaves the seal name alone.
func TestPrintStatusQualifiesUpdates(t *testing.T) {
	st := &api.Status{Backend: "cpu", ProofTypes: []api.ProofTypeStatus{
		{Name: "StackedDrg2KiBV1", Kind: "seal", Servable: true},
		{Name: "StackedDrg2KiBV1", Kind: "update", Servable: true},
		{Name: "StackedDrg32GiBV1", Kind: "update", Servable: false},
	}}
	var sb strings.Builder
	printStatus(&sb, st)
	var line string
	for _, l := range strings.Split(sb.String(), "\n") {
		if strings.HasPrefix(l, "serves: ") {
			line = l
		}
	}
	if line != "serves: StackedDrg2KiBV1 update:StackedDrg2KiBV1" {
		t.Fatalf("serves line %q", line)
	}
}
