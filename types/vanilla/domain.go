package vanilla

import "strconv"

// Domain is a 32-byte hasher domain value (Sha256Domain or PoseidonDomain: the little-endian
// Fr repr), serialized by serde as an array of 32 numbers and by bincode as 32 raw bytes.
type Domain [32]byte

// readDomain reads an array of exactly 32 numbers 0..255. It is the hot path of C1 decoding
// (a 32 GiB output holds ~1.5 M domains), so it scans bytes directly.
func (r *jsonReader) readDomain() (d Domain) {
	r.expect('[')
	for i := 0; i < 32 && r.err == nil; i++ {
		if i > 0 {
			r.expect(',')
		}
		d[i] = byte(r.readUint(255))
	}
	if r.peek() != ']' {
		r.fail(ErrMalformed, "domain must have exactly 32 bytes")
		return d
	}
	r.pos++
	return d
}

func (r *jsonReader) readDomains(max int) []Domain {
	var out []Domain
	r.readArray(max, func(int) { out = append(out, r.readDomain()) })
	return out
}

func appendDomain(b []byte, d *Domain) []byte {
	b = append(b, '[')
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(v), 10)
	}
	return append(b, ']')
}

func appendDomains(b []byte, ds []Domain) []byte {
	b = append(b, '[')
	for i := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendDomain(b, &ds[i])
	}
	return append(b, ']')
}
