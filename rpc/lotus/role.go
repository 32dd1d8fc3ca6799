package lotus

import (
	"fmt"
	"strings"

	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
)

// Role is one registration with the miner: the task types it advertises.
type Role string

// Roles. Each is a separate lotus worker (URL, Session UUID): lotus-miner hands a worker
// advertising a PoSt task type only to that PoSt scheduler.
const (
	RoleC2      Role = "c2"
	RoleWindow  Role = "wdpost"
	RoleWinning Role = "winpost"
)

// AllRoles lists the roles in a fixed order.
var AllRoles = []Role{RoleC2, RoleWindow, RoleWinning}

// TaskType is the role's main lotus task type (the one that names it in logs).
func (r Role) TaskType() sealtasks.TaskType {
	switch r {
	case RoleC2:
		return sealtasks.TTCommit2
	case RoleWindow:
		return sealtasks.TTGenerateWindowPoSt
	case RoleWinning:
		return sealtasks.TTGenerateWinningPoSt
	}
	return ""
}

// TaskTypes are every task type the role can serve: its own, and for c2 also SnapDeals'
// ProveReplicaUpdate2, which lotus-miner schedules through the same sealing scheduler
// (TaskTypes advertises it only while update parameters are servable).
func (r Role) TaskTypes() []sealtasks.TaskType {
	if r == RoleC2 {
		return []sealtasks.TaskType{sealtasks.TTCommit2, sealtasks.TTProveReplicaUpdate2}
	}
	if tt := r.TaskType(); tt != "" {
		return []sealtasks.TaskType{tt}
	}
	return nil
}

// serves reports whether tt is one of the role's task types.
func (r Role) serves(tt sealtasks.TaskType) bool {
	for _, t := range r.TaskTypes() {
		if t == tt {
			return true
		}
	}
	return false
}

// Path is the role's JSON-RPC path on the worker's listener.
func (r Role) Path() string { return "/" + string(r) + "/rpc/v0" }

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r.TaskType() != "" }

// ParseRoles parses a comma-separated role list ("c2,wdpost,winpost").
func ParseRoles(s string) ([]Role, error) {
	var out []Role
	seen := map[Role]bool{}
	for _, f := range strings.Split(s, ",") {
		r := Role(strings.TrimSpace(f))
		if r == "" {
			continue
		}
		if !r.Valid() {
			return nil, fmt.Errorf("lotus: unknown role %q (want c2, wdpost or winpost)", r)
		}
		if seen[r] {
			return nil, fmt.Errorf("lotus: role %q listed twice", r)
		}
		seen[r] = true
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("lotus: no role in %q", s)
	}
	return out, nil
}
