package model

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"30s", 30 * time.Second},
		{"1m30s", 90 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"90", 90 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{" 0 ", 0},
		{"-0", 0},
		{"2562047h", 2562047 * time.Hour},
		{"9223372036", 9223372036 * time.Second},
	} {
		got, err := ParseDuration(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, why string }{
		{"inf", "not a number of seconds"},
		{"+Inf", "not a number of seconds"},
		{"-inf", "not a number of seconds"},
		{"Infinity", "not a number of seconds"},
		{"NaN", "not a number of seconds"},
		{"-5", "out of range: negative"},
		{"-0.5", "out of range: negative"},
		{"-5s", "out of range: negative"},
		{"-1h30m", "out of range: negative"},
		{"1e300", "too long, at most 9223372036 seconds"},
		{"1e400", "out of range: too long"},
		{"-1e400", "out of range: negative"},
		{"9223372037", "out of range: too long"},
		{"2562048h", "out of range: too long"},
		{"99999999999999999999s", "out of range: too long"},
		{"abc", "want e.g. 30s"},
		{"...", "want e.g. 30s"},
		{"5 s", "want e.g. 30s"},
		{"", "want e.g. 30s"},
	} {
		got, err := ParseDuration(c.in)
		if err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", c.in, got)
			continue
		}
		if !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), `"`+strings.TrimSpace(c.in)+`"`) {
			t.Errorf("ParseDuration(%q): %v; want it to name the value and say %q", c.in, err, c.why)
		}
		if malformed := strings.HasPrefix(c.why, "want"); errors.Is(err, ErrDurationRange) == malformed {
			t.Errorf("ParseDuration(%q): %v; ErrDurationRange wrapped: %v", c.in, err, !malformed)
		}
	}
}

func TestDurationText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 2 * time.Hour: "2h", 90 * time.Second: "90s", 1500 * time.Millisecond: "1500ms", 60 * time.Minute: "1h",
	} {
		if got := DurationText(d); got != want {
			t.Errorf("DurationText(%v) = %q, want %q", d, got, want)
		}
	}
}
