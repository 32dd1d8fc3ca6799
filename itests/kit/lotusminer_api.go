package kit

import (
	"context"
	"fmt"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/go-state-types/abi"
	lapi "github.com/filecoin-project/lotus/api"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/google/uuid"
)

// minerAPI implements the served subset of lotus's api.StorageMiner. The embedded stubs
// are lotus's generated ones: every other method answers lotus's ErrNotSupported. They
// make minerAPI an api.StorageMiner, so that lotus's permission proxy accepts it and the
// compiler checks every served method against lotus's own signature.
type minerAPI struct {
	lapi.StorageMinerStub
	lapi.NetStub
	m *LotusMiner
}

var _ lapi.StorageMiner = (*minerAPI)(nil)

// AuthVerify is lotus's token check (HS256 with the miner's API secret).
func (a *minerAPI) AuthVerify(ctx context.Context, token string) ([]auth.Permission, error) {
	return a.m.verifyToken(ctx, token)
}

// AuthNew mints a token with exactly perms.
func (a *minerAPI) AuthNew(_ context.Context, perms []auth.Permission) ([]byte, error) {
	return a.m.newToken(perms)
}

// Version reports miner API 1.5.0, what lotus-worker requires.
func (a *minerAPI) Version(context.Context) (lapi.APIVersion, error) {
	return lapi.APIVersion{Version: "1.36.3+snarkpipe-itest-sim", APIVersion: lapi.MinerAPIVersion0, BlockDelay: 30}, nil
}

// Session changes when the miner restarts.
func (a *minerAPI) Session(context.Context) (uuid.UUID, error) { return a.m.Session(), nil }

// WorkerConnect dials the worker back and adds it to a scheduler (workers.go).
func (a *minerAPI) WorkerConnect(ctx context.Context, url string) error {
	return a.m.addWorker(ctx, url)
}

// ReturnSealCommit2 records a C2 result (c2.go).
func (a *minerAPI) ReturnSealCommit2(_ context.Context, callID storiface.CallID, proof storiface.Proof, cerr *storiface.CallError) error {
	return a.m.returnC2(callID, proof, cerr)
}

// StorageFindSector lists the miner's store for a fixture sector (its sealed and cache
// files) and nothing for any other sector or file type, as lotus's index does.
func (a *minerAPI) StorageFindSector(_ context.Context, sector abi.SectorID, ft storiface.SectorFileType, _ abi.SectorSize, _ bool) ([]storiface.SectorStorageInfo, error) {
	m := a.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sectors[sector.Number]; !ok || sector.Miner != FixtureMiner || ft&^(storiface.FTSealed|storiface.FTCache) != 0 || ft == 0 {
		return []storiface.SectorStorageInfo{}, nil
	}
	base := "http://" + m.addr + "/remote"
	return []storiface.SectorStorageInfo{{
		ID:       storiface.ID("11111111-2222-3333-4444-555555555555"),
		URLs:     []string{fmt.Sprintf("%s/sealed/s-t0%d-%d", base, sector.Miner, sector.Number)},
		BaseURLs: []string{base},
		Weight:   10, CanSeal: true, CanStore: true, Primary: true,
	}}, nil
}
