package lotus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// loadSession reads the role's Session UUID from dir/session, creating it on first use.
// It is stable across restarts: the miner keeps the worker (and the calls it waits on)
// instead of dropping it as "worker restarted".
func loadSession(dir string) (uuid.UUID, error) {
	path := filepath.Join(dir, "session")
	b, err := os.ReadFile(path)
	if err == nil {
		u, perr := uuid.Parse(strings.TrimSpace(string(b)))
		if perr != nil || u == uuid.Nil {
			return uuid.Nil, fmt.Errorf("lotus: session file %s does not hold a UUID (remove it to make a new one)", path)
		}
		return u, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return uuid.Nil, fmt.Errorf("lotus: session: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return uuid.Nil, fmt.Errorf("lotus: session: %w", err)
	}
	u := uuid.New()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(u.String()+"\n"), 0o600); err != nil {
		return uuid.Nil, fmt.Errorf("lotus: session: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return uuid.Nil, fmt.Errorf("lotus: session: %w", err)
	}
	return u, syncDir(dir)
}
