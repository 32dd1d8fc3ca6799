package pipeline

import (
	"testing"

	"github.com/snarkpipe/snarkpipe/prover/backend"
	"github.com/snarkpipe/snarkpipe/prover/r1cs"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// porep32Counts are the 32 GiB PoRep circuit's counts (sealer/porep's known counts,
// pinned there to the golden file; repeated here because the pipeline does not import
// the sealer).
var porep32Counts = r1cs.Counts{Sizes: r1cs.Sizes{NumInputs: 328, NumAux: 130169893, NumConstraints: 130278541},
	AAux: 129753292, BInput: 1, BAux: 33112281}

func tierPipeline(budget int64, tier KeyTier, stream bool) (*Pipeline, *device) {
	d := &device{caps: deviceCaps{resident: true, streams: 1, streamKeys: stream, streamShape: stream}, arena: newArena("device0", budget, newFreer(), nil)}
	return &Pipeline{cfg: Config{KeyTier: tier}, devices: []*device{d}}, d
}

// TestKeyPlacement: the key stays resident where it fits; otherwise the fewest vectors in
// streamOrder leave the device, and the device entry shrinks (and the host entry grows)
// by their bytes; a device that cannot stream, or a forced tier, decides alone; a budget
// too small even for the streamed tier is refused with the bytes it needs.
func TestKeyPlacement(t *testing.T) {
	h := Hint{Counts: porep32Counts, ParamsBytes: srs.ParamsBytes(porep32Counts), ShapeBytes: 9 << 30}
	const gib = int64(1) << 30
	p, d := tierPipeline(200*gib, TierAuto, true)
	full := p.residentEntryBytes(d, h)
	room := msmRoom(h.Counts)
	key := streamedBytes(h.Counts, backend.KeyAll)
	all := placement{key: backend.KeyAll, shape: true}
	if key < 44*gib || key > 45*gib {
		t.Fatalf("32 GiB PoRep key %d bytes, want about 44.2 GiB", key)
	}
	cases := []struct {
		budget int64
		tier   KeyTier
		stream bool
		want   placement
	}{
		{200 * gib, TierAuto, true, placement{}},
		{full + room, TierAuto, true, placement{}},
		{full + room - 1, TierAuto, true, placement{key: backend.KeyBG2}},
		{full + room - 7*gib, TierAuto, true, placement{key: backend.KeyBG2 | backend.KeyBG1}},
		{full + room - 20*gib, TierAuto, true, placement{key: backend.KeyBG2 | backend.KeyBG1 | backend.KeyA | backend.KeyL}},
		{full + room - key + streamReserve, TierAuto, true, placement{key: backend.KeyAll}},
		{full + room - key + streamReserve - 1, TierAuto, true, all},
		{30 * gib, TierAuto, true, all},
		{10 * gib, TierAuto, true, all},
		{30 * gib, TierAuto, false, placement{}},
		{200 * gib, TierStreamed, true, all},
		{200 * gib, TierPartial, true, placement{key: backend.KeyBG2}},
		{30 * gib, TierResident, true, placement{}},
	}
	for _, tc := range cases {
		p, d := tierPipeline(tc.budget, tc.tier, tc.stream)
		got := p.placementOf(d, h)
		if got != tc.want {
			t.Errorf("budget %d, tier %q, stream %v: placement %s, want %s", tc.budget, tc.tier, tc.stream, got.name(), tc.want.name())
			continue
		}
		hostBytes := streamedBytes(h.Counts, got.key) + boolBytes(got.shape, h.ShapeBytes)
		entry := p.deviceEntryBytes(d, h)
		if wantEntry := full - hostBytes + boolBytes(got.streams(), streamReserve); entry != wantEntry {
			t.Errorf("%s: device entry %d, want %d", got.name(), entry, wantEntry)
		}
		if got.streams() && got != all && tc.tier == TierAuto && entry+room > tc.budget {
			t.Errorf("%s: device entry %d and MSM room %d over the budget %d", got.name(), entry, room, tc.budget)
		}
		if hb := p.hostStreamBytes(h); hb != hostBytes {
			t.Errorf("%s: host bytes %d, want %d", got.name(), hb, hostBytes)
		}
		err := d.arena.fits(request{id: "porep-32g", entryBytes: entry})
		if fits := entry <= tc.budget; fits != (err == nil) {
			t.Errorf("%s under budget %d: fits error %v", got.name(), tc.budget, err)
		}
	}
}

func boolBytes(b bool, n int64) int64 {
	if b {
		return n
	}
	return 0
}

func TestParseKeyTier(t *testing.T) {
	for in, want := range map[string]KeyTier{"": TierAuto, "auto": TierAuto, "Resident": TierResident, " partial ": TierPartial, "streamed": TierStreamed} {
		if got, err := ParseKeyTier(in); err != nil || got != want {
			t.Errorf("ParseKeyTier(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseKeyTier("host"); err == nil {
		t.Error("ParseKeyTier(\"host\") accepted")
	}
	cfg := DefaultConfig()
	cfg.KeyTier = "sometimes"
	if err := cfg.Validate(); err == nil {
		t.Error("Validate accepted key_tier \"sometimes\"")
	}
}

func TestPlacementName(t *testing.T) {
	for pl, want := range map[placement]string{
		{}:                                   "resident",
		{key: backend.KeyAll}:                "streamed (key; shape resident)",
		{key: backend.KeyAll, shape: true}:   "streamed (key and shape)",
		{key: backend.KeyBG2 | backend.KeyA}: "partly resident (a+b_g2 streamed)",
		{key: backend.KeyBG2, shape: true}:   "partly resident (b_g2 and the shape streamed)",
	} {
		if got := pl.name(); got != want {
			t.Errorf("%+v: name %q, want %q", pl, got, want)
		}
	}
}
