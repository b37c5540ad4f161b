package report

import (
	"bytes"
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

func TestFNV128aAsHashFNV(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	inputs := [][]byte{nil, {0}, []byte("a"), []byte("retry-tries-unbounded\x00nginx.conf\x00proxy_pass http://x;")}
	for range 500 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		inputs = append(inputs, b)
	}
	for _, b := range inputs {
		want := fnv.New128a()
		_, _ = want.Write(b)
		split := len(b) / 3
		got := newFNV128a().write(b[:split]).writeString(string(b[split:]))
		if !bytes.Equal(got.sum(nil), want.Sum(nil)) {
			t.Fatalf("%q: %x, hash/fnv %x", b, got.sum(nil), want.Sum(nil))
		}
	}
}
