package rules

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestFindingBatchesKeepOrder(t *testing.T) {
	var none findingBatches
	if got := none.all(); got != nil {
		t.Errorf("no findings: %v, want nil", got)
	}
	for _, n := range []int{1, 8, 9, 3000} {
		var b findingBatches
		for i := range n {
			b.add(Finding{Message: strconv.Itoa(i)})
		}
		got := b.all()
		if len(got) != n || cap(got) > n+1024 {
			t.Fatalf("%d findings: got %d (room for %d)", n, len(got), cap(got))
		}
		for i, f := range got {
			if f.Message != strconv.Itoa(i) {
				t.Fatalf("%d findings: finding %d is %q", n, i, f.Message)
			}
		}
	}
}

// longRun finds a run of more than maxEcho bytes without white space
// exactly where a byte-by-byte count does.
func TestLongRunAsCounted(t *testing.T) {
	count := func(s string) bool {
		run := 0
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == ' ' || c == '\n' || c == '\t' {
				run = 0
				continue
			}
			if run++; run > maxEcho {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 3000 {
		b := make([]byte, rng.IntN(3*maxEcho))
		gap := 1 + rng.IntN(2*maxEcho)
		for i := range b {
			b[i] = 'x'
			if rng.IntN(gap) == 0 {
				b[i] = " \n\t"[rng.IntN(3)]
			}
		}
		s := string(b)
		if got, want := longRun(s), count(s); got != want {
			t.Fatalf("longRun of %d bytes (a blank every %d or so) = %v, counted %v", len(s), gap, got, want)
		}
	}
	for _, n := range []int{maxEcho - 1, maxEcho, maxEcho + 1} {
		for _, pad := range []string{"", " ", "a b "} {
			s := pad + strings.Repeat("x", n) + pad
			if got, want := longRun(s), count(s); got != want {
				t.Errorf("%d bytes padded with %q: longRun = %v, counted %v", n, pad, got, want)
			}
		}
	}
}
