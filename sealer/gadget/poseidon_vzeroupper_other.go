//go:build purego || !amd64

package gadget

// clearUpper has nothing to clear where gnark-crypto has no AVX-512 paths.
func clearUpper() {}
