package graph

// BLAKE2b initialization vector (RFC 7693). blake2b512Head8 (blake2b16_gen.go) uses them.
const (
	iv0 = 0x6a09e667f3bcc908
	iv1 = 0xbb67ae8584caa73b
	iv2 = 0x3c6ef372fe94f82b
	iv3 = 0xa54ff53a5f1d36f1
	iv4 = 0x510e527fade682d1
	iv5 = 0x9b05688c2b3e6c1f
	iv6 = 0x1f83d9abfb41bd6b
	iv7 = 0x5be0cd19137e2179
)
