// Package suggest finds the name a misspelt one was probably meant to be,
// for "did you mean" hints in messages.
package suggest

// Distance is the optimal string alignment distance between a and b: the
// number of insertions, deletions, substitutions and swaps of two
// neighbouring bytes that turn a into b.
func Distance(a, b string) int {
	// Rows i-2, i-1 and i of the table.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// Nearest returns the candidate closest to word, if it is at most limit
// edits away and no other candidate is as close; otherwise "".
func Nearest(word string, candidates []string, limit int) string {
	best, bestD, tie := "", limit+1, false
	for _, c := range candidates {
		switch d := Distance(word, c); {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || best == "" {
		return ""
	}
	return best
}
