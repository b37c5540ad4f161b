//go:build !race

package nginx

// raceDetector says whether the race detector, which slows the code
// down several times, is on.
const raceDetector = false
