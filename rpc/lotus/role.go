package lotus

import (
	"fmt"
	"strings"

	"github.com/filecoin-project/lotus/storage/sealer/sealtasks"
)

// Role is one registration with the miner: the task type it advertises.
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

// TaskType is the lotus task type the role advertises.
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
