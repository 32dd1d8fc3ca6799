package vanilla

import (
	"fmt"
	"strconv"
)

// jsonReader is a strict reader for the fixed serde layouts of this package. It knows only
// the JSON this package needs: objects with plain-ASCII keys, arrays, unsigned integers,
// plain strings and null. Whitespace between tokens is accepted; anything else is an error.
type jsonReader struct {
	buf  []byte
	pos  int
	path []string // field path for error messages
	err  error    // first error; every method is a no-op once set
}

func (r *jsonReader) fail(kind error, format string, args ...any) {
	if r.err == nil {
		r.err = &DecodeError{Offset: r.pos, Path: joinPath(r.path), Err: kind, Msg: fmt.Sprintf(format, args...)}
	}
}

func joinPath(p []string) string {
	s := ""
	for i, e := range p {
		if i > 0 {
			s += "."
		}
		s += e
	}
	return s
}

func (r *jsonReader) push(name string) { r.path = append(r.path, name) }
func (r *jsonReader) pop()             { r.path = r.path[:len(r.path)-1] }

func (r *jsonReader) skipSpace() {
	for r.pos < len(r.buf) {
		switch r.buf[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it (0 at the end of input).
func (r *jsonReader) peek() byte {
	r.skipSpace()
	if r.err != nil || r.pos >= len(r.buf) {
		return 0
	}
	return r.buf[r.pos]
}

func (r *jsonReader) expect(c byte) {
	if r.peek() != c {
		r.fail(ErrMalformed, "expected %q", c)
		return
	}
	r.pos++
}

// consume eats c if it is next and reports whether it did.
func (r *jsonReader) consume(c byte) bool {
	if r.peek() == c {
		r.pos++
		return true
	}
	return false
}

// maxStringLen bounds every string this package reads (keys and proof type names).
const maxStringLen = 64

// readString reads a string without escapes (serde writes keys and enum names plainly).
func (r *jsonReader) readString() string {
	r.expect('"')
	start := r.pos
	for r.err == nil && r.pos < len(r.buf) {
		c := r.buf[r.pos]
		switch {
		case c == '"':
			s := string(r.buf[start:r.pos])
			r.pos++
			return s
		case c == '\\' || c < 0x20 || c >= 0x7f:
			r.fail(ErrMalformed, "unsupported character in string")
			return ""
		case r.pos-start >= maxStringLen:
			r.fail(ErrLimit, "string longer than %d bytes", maxStringLen)
			return ""
		}
		r.pos++
	}
	r.fail(ErrMalformed, "unterminated string")
	return ""
}

// readUint reads a non-negative integer no larger than max, without leading zeros.
func (r *jsonReader) readUint(max uint64) uint64 {
	r.skipSpace()
	if r.err != nil {
		return 0
	}
	start := r.pos
	var v uint64
	for r.pos < len(r.buf) {
		c := r.buf[r.pos]
		if c < '0' || c > '9' {
			break
		}
		d := uint64(c - '0')
		if v > (max-d)/10 {
			r.fail(ErrMalformed, "integer out of range (max %d)", max)
			return 0
		}
		v = v*10 + d
		r.pos++
	}
	if n := r.pos - start; n == 0 || (n > 1 && r.buf[start] == '0') {
		r.fail(ErrMalformed, "expected an unsigned integer")
		return 0
	}
	return v
}

func (r *jsonReader) readNull() {
	r.skipSpace()
	if r.err == nil && len(r.buf)-r.pos >= 4 && string(r.buf[r.pos:r.pos+4]) == "null" {
		r.pos += 4
		return
	}
	r.fail(ErrMalformed, "expected null")
}

// readArray calls elem for each element of an array, refusing more than max elements.
func (r *jsonReader) readArray(max int, elem func(i int)) {
	r.expect('[')
	if r.consume(']') {
		return
	}
	for i := 0; r.err == nil; i++ {
		if i >= max {
			r.fail(ErrLimit, "more than %d elements", max)
			return
		}
		r.push(strconv.Itoa(i))
		elem(i)
		r.pop()
		if r.consume(']') {
			return
		}
		r.expect(',')
	}
}

// readObject reads an object whose keys are exactly fields (in any order, each once). field is
// called with the index of the key in fields.
func (r *jsonReader) readObject(fields []string, field func(k int)) {
	var seen uint64 // fields never exceed 64 here
	r.expect('{')
	if !r.consume('}') {
		for r.err == nil {
			key := r.readString()
			r.expect(':')
			k := indexOf(fields, key)
			switch {
			case r.err != nil:
				return
			case k < 0:
				r.fail(ErrMalformed, "unknown field %q", key)
				return
			case seen&(1<<k) != 0:
				r.fail(ErrMalformed, "duplicate field %q", key)
				return
			}
			seen |= 1 << k
			r.push(key)
			field(k)
			r.pop()
			if r.consume('}') {
				break
			}
			r.expect(',')
		}
	}
	if r.err == nil && seen != 1<<len(fields)-1 {
		for k, name := range fields {
			if seen&(1<<k) == 0 {
				r.fail(ErrMalformed, "missing field %q", name)
				return
			}
		}
	}
}

// readEnum reads a serde externally tagged enum {"Variant": value}; variant is called with the
// index of the tag in variants.
func (r *jsonReader) readEnum(variants []string, variant func(k int)) {
	r.expect('{')
	key := r.readString()
	r.expect(':')
	k := indexOf(variants, key)
	if r.err != nil {
		return
	}
	if k < 0 {
		r.fail(ErrMalformed, "unknown variant %q", key)
		return
	}
	r.push(key)
	variant(k)
	r.pop()
	r.expect('}')
}

// end checks that nothing but whitespace follows the value.
func (r *jsonReader) end() {
	if r.peek() != 0 {
		r.fail(ErrMalformed, "trailing data")
	}
}

func indexOf(list []string, s string) int {
	for i, e := range list {
		if e == s {
			return i
		}
	}
	return -1
}
