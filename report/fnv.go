package report

import "math/bits"

// fnv128a is the state of a 128-bit FNV-1a hash (what hash/fnv's New128a
// computes), kept in two words and copied by value: the fingerprint of a
// finding resumes the state its rule and line left, which hash/fnv can only
// do through MarshalBinary and UnmarshalBinary, with an allocation or
// three each time. TestFNV128aAsHashFNV holds the two equal.
type fnv128a struct{ hi, lo uint64 }

// The 128-bit offset basis, and the prime 2^88 + 0x13b as the shift of
// its high part and its low word.
const (
	fnv128OffsetHi = 0x6c62272e07bb0142
	fnv128OffsetLo = 0x62b821756295c58d
	fnv128PrimeLo  = 0x13b
	fnv128Shift    = 88 - 64
)

func newFNV128a() fnv128a { return fnv128a{fnv128OffsetHi, fnv128OffsetLo} }

func (h fnv128a) add(c byte) fnv128a {
	h.lo ^= uint64(c)
	// (hi·2^64 + lo) · (2^88 + 0x13b), modulo 2^128.
	hi, lo := bits.Mul64(fnv128PrimeLo, h.lo)
	hi += h.lo<<fnv128Shift + fnv128PrimeLo*h.hi
	return fnv128a{hi, lo}
}

func (h fnv128a) write(b []byte) fnv128a {
	for _, c := range b {
		h = h.add(c)
	}
	return h
}

func (h fnv128a) writeString(s string) fnv128a {
	for i := 0; i < len(s); i++ {
		h = h.add(s[i])
	}
	return h
}

// sum appends the hash big-endian, as hash/fnv's Sum does.
func (h fnv128a) sum(dst []byte) []byte {
	for _, w := range []uint64{h.hi, h.lo} {
		for shift := 56; shift >= 0; shift -= 8 {
			dst = append(dst, byte(w>>shift))
		}
	}
	return dst
}
