package lazyre

import (
	"sync"
	"testing"
)

func TestCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+b$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = re() })
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("two expressions for one pattern")
		}
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Error("the expression does not match as its pattern says")
	}
}

func TestInvalidPatternPanicsAtFirstUse(t *testing.T) {
	re := New(`(`) // no panic here
	defer func() {
		if recover() == nil {
			t.Error("an invalid pattern did not panic at its first use")
		}
	}()
	re()
}
