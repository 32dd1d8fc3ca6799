package lotus

import "fmt"

// Version is lotus' binary semver (major<<16 | minor<<8 | patch), a JSON number on the wire.
type Version uint32

func newVersion(major, minor, patch uint8) Version {
	return Version(uint32(major)<<16 | uint32(minor)<<8 | uint32(patch))
}

// Versions lotus checks (lotus api/version.go).
var (
	// WorkerAPIVersion is what our Version method answers; the miner requires the same
	// major and minor (1.7.x).
	WorkerAPIVersion = newVersion(1, 7, 0)
	// MinerAPIVersion is the miner API version a worker accepts (lotus-worker checks
	// equality; we accept any 1.5.x).
	MinerAPIVersion = newVersion(1, 5, 0)
)

const minorMask = 0xffff00

// SameMajorMinor reports whether two versions agree on major and minor.
func (v Version) SameMajorMinor(o Version) bool { return v&minorMask == o&minorMask }

func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v>>16, (v>>8)&0xff, v&0xff)
}

// APIVersion is the miner's answer to Version (lotus api.APIVersion).
type APIVersion struct {
	Version    string
	APIVersion Version
	BlockDelay uint64
	Agent      string `json:",omitempty"`
}
