//go:build !race

package load

// raceDetector says whether the race detector, which slows the code
// down several times, is on.
const raceDetector = false
