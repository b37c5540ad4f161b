//go:build !race

// Package racedetect says whether the program was built with the race
// detector, so that tests bounding how long a load may take before they
// call it blocked allow for its slowdown.
package racedetect

// Enabled says whether the race detector, which slows the code down
// several times, is on.
const Enabled = false
