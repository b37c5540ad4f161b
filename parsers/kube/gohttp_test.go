package kube

import (
	"net/http"
	"testing"
)

// The constant held for Go's default stays Go's default.
func TestGoMaxIdlePerHostIsNetHTTPs(t *testing.T) {
	if goMaxIdlePerHost != http.DefaultMaxIdleConnsPerHost {
		t.Fatalf("goMaxIdlePerHost %d, net/http's DefaultMaxIdleConnsPerHost %d", goMaxIdlePerHost, http.DefaultMaxIdleConnsPerHost)
	}
}
