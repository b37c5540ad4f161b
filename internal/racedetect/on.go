//go:build race

package racedetect

// Enabled says whether the race detector, which slows the code down
// several times, is on.
const Enabled = true
