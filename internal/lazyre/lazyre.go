// Package lazyre compiles a regular expression the first time it is used
// rather than when the program starts: every run of proxylint pays for
// what its packages initialise, and most runs use few of their
// expressions.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern on its first call (and
// panics there if it is invalid, as regexp.MustCompile does) and returns
// the same expression on every call, safely from any goroutine.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
