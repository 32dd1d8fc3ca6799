package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"

	"github.com/snarkpipe/snarkpipe/types"
)

// AddSectors puts fixture sectors in the miner's storage (StorageFindSector finds them,
// /remote/vanilla/single serves them).
func (m *LotusMiner) AddSectors(ss ...*Sector) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range ss {
		m.sectors[s.ID.Number] = s
	}
}

// BreakSector makes a stored sector unreadable: the index still lists it, reading its
// vanilla proof fails with HTTP 500 (lotus's answer when the files cannot be read).
func (m *LotusMiner) BreakSector(n abi.SectorNumber) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.broken[n] = true
}

// vanillaKey names one vanilla proof the miner can serve: the sector and the challenges
// it issued for it (the storage endpoint serves only what a PoSt of this miner asked).
type vanillaKey struct {
	ppt        abi.RegisteredPoStProof
	sector     abi.SectorNumber
	challenges string
}

func keyOf(ppt abi.RegisteredPoStProof, n abi.SectorNumber, ch []uint64) vanillaKey {
	return vanillaKey{ppt: ppt, sector: n, challenges: fmt.Sprint(ch)}
}

// singleVanillaParams is lotus's paths.SingleVanillaParams (storage/paths imports
// filecoin-ffi, so it is restated here).
type singleVanillaParams struct {
	Miner     abi.ActorID
	Sector    storiface.PostSectorChallenge
	ProofType abi.RegisteredPoStProof
}

// serveVanilla is POST /remote/vanilla/single as lotus's FetchHandler serves it.
func (m *LotusMiner) serveVanilla(w http.ResponseWriter, r *http.Request) {
	if !auth.HasPerm(r.Context(), nil, "admin") {
		w.WriteHeader(401)
		json.NewEncoder(w).Encode(struct{ Error string }{"unauthorized: missing write permission"})
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var p singleVanillaParams
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	m.mu.Lock()
	v, ok := m.vanilla[keyOf(p.ProofType, p.Sector.SectorNumber, p.Sector.Challenge)]
	broken := m.broken[p.Sector.SectorNumber]
	m.mu.Unlock()
	switch {
	case p.Miner != FixtureMiner:
		http.Error(w, fmt.Sprintf("sector of miner %d not stored here", p.Miner), 500)
	case broken:
		http.Error(w, fmt.Sprintf("generating vanilla proof of sector %d: reading cache: input/output error", p.Sector.SectorNumber), 500)
	case !ok:
		http.Error(w, fmt.Sprintf("no PoSt of this miner challenged sector %d with %v", p.Sector.SectorNumber, p.Sector.Challenge), 500)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(v))
	}
}

// challenge prepares sector s at sectorIndex of a PoSt: the challenge lotus sends the
// worker, and the vanilla proof its storage will serve for it.
func (m *LotusMiner) challenge(ppt abi.RegisteredPoStProof, randomness []byte, s *Sector, sectorIndex int) (storiface.PostSectorChallenge, error) {
	ch, err := s.Challenges(ppt, randomness, sectorIndex)
	if err != nil {
		return storiface.PostSectorChallenge{}, err
	}
	v, err := s.Vanilla(ppt, randomness, sectorIndex)
	if err != nil {
		return storiface.PostSectorChallenge{}, err
	}
	m.mu.Lock()
	m.sectors[s.ID.Number] = s
	m.vanilla[keyOf(ppt, s.ID.Number, ch)] = v
	m.mu.Unlock()
	return storiface.PostSectorChallenge{SealProof: s.SealProof, SectorNumber: s.ID.Number, SealedCID: s.SealedCID, Challenge: ch}, nil
}

// PartitionResult is one partition of a Window PoSt as the miner got it back.
type PartitionResult struct {
	Index   int
	Sectors []abi.SectorNumber
	// Proof is the partition's proof (nil when the worker skipped sectors or failed).
	Proof *proof.PoStProof
	// Skipped is the worker's Skipped list, exactly as returned.
	Skipped []abi.SectorID
	// Err is the call's error; VerifyErr the proof's verification against the chain's
	// view (all the sectors of the PoSt and the randomness).
	Err       error
	VerifyErr error
}

// WindowPoSt runs one Window PoSt over sectors (in this order) as lotus's Manager does:
// randomness masked, challenges per sector at its index in the whole PoSt, partitions of
// SectorsPerPartition sectors sent to Window PoSt workers in parallel, each returned
// proof verified. Partitions appear in index order.
func (m *LotusMiner) WindowPoSt(ctx context.Context, t testing.TB, ppt abi.RegisteredPoStProof, randomness []byte, sectors []*Sector) []PartitionResult {
	t.Helper()
	info, err := types.PoStProof(ppt)
	if err != nil || info.Kind != types.PoStWindow {
		t.Fatalf("kit: %v is not a Window PoSt type (%v)", ppt, err)
	}
	rnd := masked(t, randomness)
	challenges := make([]storiface.PostSectorChallenge, len(sectors))
	public := make([]PoStSector, len(sectors))
	for i, s := range sectors {
		if challenges[i], err = m.challenge(ppt, rnd, s, i); err != nil {
			t.Fatal(err)
		}
		public[i] = PoStSector{Number: s.ID.Number, CommR: s.CommR}
	}
	per := info.SectorsPerPartition
	out := make([]PartitionResult, (len(sectors)+per-1)/per)
	var wg sync.WaitGroup
	for k := range out {
		part := challenges[k*per : min((k+1)*per, len(challenges))]
		out[k] = PartitionResult{Index: k}
		for _, c := range part {
			out[k].Sectors = append(out[k].Sectors, c.SectorNumber)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[k].Proof, out[k].Skipped, out[k].Err = m.windowPartition(ctx, ppt, part, k, rnd)
		}()
	}
	wg.Wait()
	for k := range out {
		if out[k].Proof != nil {
			out[k].VerifyErr = verifyPoStProof(t, ppt, rnd, public, k, out[k].Proof)
		}
	}
	return out
}

func (m *LotusMiner) windowPartition(ctx context.Context, ppt abi.RegisteredPoStProof, part []storiface.PostSectorChallenge, k int, rnd abi.PoStRandomness) (*proof.PoStProof, []abi.SectorID, error) {
	// lotus schedules PoSt by the sectors' seal proof type.
	w, release, err := m.pickWorker(ctx, "window", sealtasks.TTGenerateWindowPoSt, part[0].SealProof)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	defer m.callInFlight("window")()
	res, err := w.api.GenerateWindowPoSt(ctx, ppt, FixtureMiner, part, k, rnd)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Skipped) > 0 || len(res.PoStProofs.ProofBytes) == 0 {
		return nil, res.Skipped, nil
	}
	p := res.PoStProofs
	return &p, res.Skipped, nil
}

// WinningPoSt runs a Winning PoSt of sector s on a Winning PoSt worker and verifies the
// proof it returns.
func (m *LotusMiner) WinningPoSt(ctx context.Context, t testing.TB, ppt abi.RegisteredPoStProof, randomness []byte, s *Sector) ([]proof.PoStProof, error) {
	t.Helper()
	rnd := masked(t, randomness)
	ch, err := m.challenge(ppt, rnd, s, 0)
	if err != nil {
		return nil, err
	}
	w, release, err := m.pickWorker(ctx, "winning", sealtasks.TTGenerateWinningPoSt, s.SealProof)
	if err != nil {
		return nil, err
	}
	defer release()
	defer m.callInFlight("winning")()
	proofs, err := w.api.GenerateWinningPoSt(ctx, ppt, FixtureMiner, []storiface.PostSectorChallenge{ch}, rnd)
	if err != nil {
		return nil, err
	}
	if len(proofs) != 1 {
		return proofs, fmt.Errorf("kit: %d Winning PoSt proofs, want 1", len(proofs))
	}
	return proofs, verifyPoStProof(t, ppt, rnd, []PoStSector{{Number: s.ID.Number, CommR: s.CommR}}, 0, &proofs[0])
}

func verifyPoStProof(t testing.TB, ppt abi.RegisteredPoStProof, rnd []byte, sectors []PoStSector, k int, p *proof.PoStProof) error {
	t.Helper()
	if p.PoStProof != ppt {
		return fmt.Errorf("kit: proof of type %v, want %v", p.PoStProof, ppt)
	}
	return VerifyPoSt(t, ppt, rnd, sectors, k, p.ProofBytes)
}

// masked is lotus's randomness handling before PoSt: 32 bytes, [31] &= 0x3f.
func masked(t testing.TB, randomness []byte) abi.PoStRandomness {
	t.Helper()
	r, ok := types.MaskRandomness(randomness)
	if !ok {
		t.Fatalf("kit: PoSt randomness of %d bytes, want 32", len(randomness))
	}
	return slices.Clone(r[:])
}

// callInFlight counts a PoSt call of scheduler until the returned function is called.
func (m *LotusMiner) callInFlight(scheduler string) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inflight[scheduler]++
	m.peak[scheduler] = max(m.peak[scheduler], m.inflight[scheduler])
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.inflight[scheduler]--
	}
}

// PeakPoStCalls is the largest number of PoSt calls of scheduler ("window", "winning")
// that were in flight at once.
func (m *LotusMiner) PeakPoStCalls(scheduler string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak[scheduler]
}
