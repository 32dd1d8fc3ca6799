package srs

import (
	"bufio"
	"fmt"
	"os"

	"github.com/snarkpipe/snarkpipe/prover/groth16"
)

// checkVKPair compares the .vk file at vkPath with the verifying key at the start of the
// .params file at paramsPath. Both are a few kilobytes read with every point subgroup
// checked, so a foreign or stale .vk is refused before the parameters (tens of GB at
// 32 GiB) are decoded. The daemon verifies every proof against the .vk: a .vk that is
// not the .params' own would make every proof fail after all its work.
func checkVKPair(paramsPath, vkPath string) error {
	vk, err := groth16.ReadVerifyingKeyFile(vkPath)
	if err != nil {
		return err
	}
	f, err := os.Open(paramsPath)
	if err != nil {
		return fmt.Errorf("groth16: read params: %w", err)
	}
	defer f.Close()
	own, err := groth16.ReadVerifyingKey(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return fmt.Errorf("%s: %w", paramsPath, err)
	}
	if field := own.Difference(vk); field != "" {
		return &VKMismatchError{Params: paramsPath, VK: vkPath, Field: field}
	}
	return nil
}
