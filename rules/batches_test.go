package rules

import (
	"strconv"
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
