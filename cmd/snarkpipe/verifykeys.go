package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
	"github.com/snarkpipe/snarkpipe/prover/srs"
)

// verifyingKey is a key verify may check a proof against, and where it was found.
type verifyingKey struct {
	vk   *groth16.VerifyingKey
	from string
}

// errNoVerifyingKey: verify found no key for the proof's circuit. It never makes one: a
// new random dev key could only declare the proof invalid, after minutes and gigabytes.
var errNoVerifyingKey = errors.New("no verifying key for this proof")

// noKeyError says what verify looked for and what to pass.
type noKeyError struct {
	circuit  string
	searched []string
}

func (e *noKeyError) Error() string {
	return fmt.Sprintf("%v (circuit %s): pass --vk FILE (prove --vk-out writes it; official keys are the .vk files "+
		"next to the .params), or --cache DIR where prove or daemon --dev made the dev parameters; looked for %s",
		errNoVerifyingKey, e.circuit, strings.Join(e.searched, " and "))
}

func (e *noKeyError) Unwrap() error { return errNoVerifyingKey }

// findVerifyingKeys returns the keys a proof of st may have been made with, without
// creating anything: --vk alone when given; else the key inside --params; else the
// official .vk in the parameter directory and the dev parameters in the cache, whichever
// exist (the dev entry is named by the circuit's recorded shape).
func findVerifyingKeys(st *statement, k keyFlags) ([]verifyingKey, error) {
	if k.vk != "" {
		vk, err := groth16.ReadVerifyingKeyFile(k.vk)
		if err != nil {
			return nil, err
		}
		return []verifyingKey{{vk, k.vk}}, nil
	}
	if k.params != "" {
		vk, err := vkOfParams(k.params)
		if err != nil {
			return nil, err
		}
		return []verifyingKey{{vk, k.params}}, nil
	}
	var found []verifyingKey
	var searched []string
	if name, ok := officialNames()[st.blank.ID()]; ok {
		path := filepath.Join(paramDirFromEnv(), strings.TrimSuffix(name, ".params")+".vk")
		searched = append(searched, path)
		if _, err := os.Stat(path); err == nil {
			vk, err := groth16.ReadVerifyingKeyFile(path)
			if err != nil {
				return nil, err
			}
			found = append(found, verifyingKey{vk, path})
		}
	}
	shape, err := recordShape(st)
	if err != nil {
		return nil, err
	}
	dev, err := srs.DirCache{Dir: k.cacheDir()}.Path(srs.DevParamsName(shape))
	if err != nil {
		return nil, err
	}
	searched = append(searched, "dev parameters "+dev)
	if _, err := os.Stat(dev); err == nil {
		vk, err := vkOfParams(dev)
		if err != nil {
			return nil, err
		}
		found = append(found, verifyingKey{vk, dev + " (dev)"})
	}
	if len(found) == 0 {
		return nil, &noKeyError{circuit: string(st.blank.ID()), searched: searched}
	}
	return found, nil
}

// vkOfParams reads the verifying key at the start of a .params file, not the rest.
func vkOfParams(path string) (*groth16.VerifyingKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vk, err := groth16.ReadVerifyingKey(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return vk, nil
}
