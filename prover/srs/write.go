package srs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// KeyFile is a parameter set to be written as a bellperson .params + .vk pair: its
// verifying key, the size of its .params file and the function that writes those bytes
// (groth16.ProvingKey.WriteParams streams a device-resident key; groth16.Params.WriteTo
// writes host vectors).
type KeyFile struct {
	VK    *groth16.VerifyingKey
	Size  int64
	Write func(io.Writer) (int64, error)
}

// NoSpaceError refuses a write that the free space of the directory cannot hold.
type NoSpaceError struct {
	Dir        string
	Name       string
	Need, Free int64
}

func (e *NoSpaceError) Error() string {
	return fmt.Sprintf("srs: not enough space in %s to write %s: %s needed, %s free",
		e.Dir, e.Name, byteCount(e.Need), byteCount(e.Free))
}

// WriteKeyFiles writes k into dir as name (which must end in .params) and the matching
// .vk, as a daemon reading dir looks for them. Each file is written to NAME.part, synced
// and renamed over NAME only once both are complete, so a reader never sees a partial
// file, nor a .params whose .vk is from an older key. A directory without room for both
// files is refused before anything is written (*NoSpaceError); a write that does not come
// out at k.Size bytes is an error. It returns the two paths.
func WriteKeyFiles(dir, name string, k KeyFile) (paramsPath, vkPath string, err error) {
	if !strings.HasSuffix(name, ".params") || filepath.Base(name) != name {
		return "", "", fmt.Errorf("srs: parameter file name %q is not a plain NAME.params", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("srs: parameter directory: %w", err)
	}
	paramsPath = filepath.Join(dir, name)
	vkPath = VKPath(paramsPath)
	if err := checkWriteSpace(dir, name, k.Size+vkFileSize(k.VK)); err != nil {
		return "", "", err
	}
	if err := writePart(paramsPath+".part", k.Size, k.Write); err != nil {
		return "", "", err
	}
	if err := writePart(vkPath+".part", vkFileSize(k.VK), k.VK.WriteTo); err != nil {
		os.Remove(paramsPath + ".part")
		return "", "", err
	}
	for _, p := range []string{paramsPath, vkPath} {
		if err := os.Rename(p+".part", p); err != nil {
			return "", "", fmt.Errorf("srs: %w", err)
		}
	}
	syncDir(dir)
	return paramsPath, vkPath, nil
}

// checkWriteSpace refuses when need bytes do not fit the free space of dir (unknown free
// space is not checked; a full disk then fails the write itself).
func checkWriteSpace(dir, name string, need int64) error {
	free, ok := freeSpace(dir)
	if ok && need > free {
		return &NoSpaceError{Dir: dir, Name: name, Need: need, Free: free}
	}
	return nil
}

// writePart writes size bytes with write to path (created or truncated), synced; on any
// failure the partial file is removed.
func writePart(path string, size int64, write func(io.Writer) (int64, error)) (err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("srs: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(path)
		}
	}()
	n, err := write(f)
	if err != nil {
		return fmt.Errorf("srs: writing %s: %w", path, err)
	}
	if n != size {
		return fmt.Errorf("srs: wrote %d bytes to %s, want %d", n, path, size)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("srs: %w", err)
	}
	return f.Close()
}

// vkFileSize is the size of vk's .vk file: six fixed points, the IC length and IC.
func vkFileSize(vk *groth16.VerifyingKey) int64 {
	return 3*96 + 3*192 + 4 + int64(len(vk.IC))*96
}
