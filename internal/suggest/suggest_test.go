package suggest

import "testing"

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"clustr", "cluster", 1},
		{"ab", "ba", 1},
		{"ca", "abc", 3},
		{"abcdef", "abdcef", 1},
		{"kitten", "sitting", 3},
		{"rest-before-request", "reset-before-request", 1},
		{"canceled", "cancelled", 1},
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"retry-timeout-write", "retry-tries-unbounded", "timeout-equal-adjacent"}
	if got := Nearest("retry-timout-write", names, 3); got != "retry-timeout-write" {
		t.Errorf("got %q", got)
	}
	if got := Nearest("something-else", names, 3); got != "" {
		t.Errorf("got %q, want none", got)
	}
	if got := Nearest("ab", []string{"ac", "ad"}, 2); got != "" {
		t.Errorf("a tie suggests nothing, got %q", got)
	}
}
