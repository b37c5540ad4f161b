package model

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// balancerPreset describes an external load balancer's documented defaults
// (docs/semantics.md §G).
type balancerPreset struct {
	name   string
	doc    string
	wait   time.Duration // how long it waits for the proxy behind it
	idle   time.Duration // idle timeout toward clients
	pool   time.Duration // idle timeout of its connections to the proxy
	source string
}

var balancerPresets = []balancerPreset{
	{
		name: "aws-alb", doc: "AWS Application Load Balancer",
		wait: 60 * time.Second, idle: 60 * time.Second, pool: 60 * time.Second,
		source: "idle timeout 60s on both sides (docs.aws.amazon.com/elasticloadbalancing/latest/application/edit-load-balancer-attributes.html)",
	},
	{
		name: "cloudflare", doc: "Cloudflare proxy",
		wait: 100 * time.Second, idle: 400 * time.Second, pool: 900 * time.Second,
		source: "proxy read timeout 100s (524), client keep-alive 400s, proxy idle 900s (developers.cloudflare.com/fundamentals/reference/connection-limits)",
	},
	{
		name: "gcp-lb", doc: "Google Cloud global external Application Load Balancer",
		wait: 30 * time.Second, idle: 610 * time.Second, pool: 600 * time.Second,
		source: "backend service timeoutSec 30s; keep-alive 610s toward clients, 600s toward backends (cloud.google.com/load-balancing/docs/https/request-distribution)",
	},
}

// BalancerPresets lists the names --behind accepts.
func BalancerPresets() []string {
	out := make([]string, len(balancerPresets))
	for i, p := range balancerPresets {
		out[i] = p.name
	}
	sort.Strings(out)
	return out
}

// ErrDurationRange is what ParseDuration's errors wrap when a duration is
// well formed but not one a proxy can wait: negative, infinite, not a
// number or too long.
var ErrDurationRange = errors.New("out of range")

// DurationText writes d as nginx and Envoy configurations write a
// duration: "60s", "500ms", "1h", "0s" (whole hours, else whole seconds,
// else milliseconds).
func DurationText(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
}

// ParseDuration reads a duration as people write them on a command line or
// in a configuration: Go's "1m30s", nginx's "90s" and "1h", or a bare number
// of seconds. Negative durations, infinities, NaN and anything longer than
// time.Duration holds (about 292 years) are refused.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	const want = "want e.g. 30s, 1m30s, 500ms"
	if n, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case math.IsNaN(n) || math.IsInf(n, 0) && !errors.Is(err, strconv.ErrRange):
			return 0, fmt.Errorf("bad duration %q: %w: not a number of seconds (%s)", s, ErrDurationRange, want)
		case n < 0:
			return 0, fmt.Errorf("bad duration %q: %w: negative (%s)", s, ErrDurationRange, want)
		case n*float64(time.Second) >= math.MaxInt64:
			return 0, fmt.Errorf("bad duration %q: %w: too long, at most %d seconds", s, ErrDurationRange, int64(math.MaxInt64/time.Second))
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && strings.Contains(err.Error(), "invalid duration") && validUnits(s):
		return 0, fmt.Errorf("bad duration %q: %w: too long, at most %d seconds", s, ErrDurationRange, int64(math.MaxInt64/time.Second))
	case err != nil:
		return 0, fmt.Errorf("bad duration %q (%s)", s, want)
	case d < 0:
		return 0, fmt.Errorf("bad duration %q: %w: negative (%s)", s, ErrDurationRange, want)
	}
	return d, nil
}

// validUnits reports whether s is written like a Go duration (digits,
// points and units), so that time.ParseDuration refused it for its size.
func validUnits(s string) bool {
	s = strings.TrimPrefix(s, "+")
	if !strings.ContainsAny(s, "0123456789") {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789.nsuµmh", r) {
			return false
		}
	}
	return true
}

// ClientHop is the client at the front of the path, which gives up after
// timeout. name says where it was declared (a flag or a config file).
func ClientHop(timeout time.Duration, name string, pos Pos) *Hop {
	return &Hop{
		Kind:           HopClient,
		Name:           "client",
		RequestTimeout: Set(timeout, name, "chain", pos),
	}
}

// BalancerHop is a load balancer in front of the proxies: a preset name
// (aws-alb, cloudflare, gcp-lb) or a bare duration it waits for its backend.
func BalancerHop(spec, name string, pos Pos) (*Hop, error) {
	for _, p := range balancerPresets {
		if p.name == spec {
			set := func(d time.Duration) Setting[time.Duration] {
				return Set(d, name+" "+spec, "chain", pos)
			}
			return &Hop{
				Kind: HopBalancer, Name: p.name, Preset: p.name,
				RequestTimeout: set(p.wait), IdleTimeout: set(p.idle), PoolIdleTimeout: set(p.pool),
			}, nil
		}
	}
	d, err := ParseDuration(spec)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a preset (%s) nor a duration", spec, strings.Join(BalancerPresets(), ", "))
	}
	return &Hop{
		Kind: HopBalancer, Name: "the hop in front",
		RequestTimeout: Set(d, name+" "+spec, "chain", pos),
	}, nil
}

// PresetSource says where a preset's values come from, for docs and
// messages.
func PresetSource(name string) string {
	for _, p := range balancerPresets {
		if p.name == name {
			return p.doc + ": " + p.source
		}
	}
	return ""
}

// BackendHop is the server behind the proxies: a preset name, or a bare
// duration for its idle keep-alive timeout (how long it keeps an idle
// connection from the proxy open).
func BackendHop(spec, name string, pos Pos) (*Hop, error) {
	if p, ok := backendPreset(spec); ok {
		h := &Hop{Kind: HopBackend, Name: p.name, Preset: p.name}
		set := func(d time.Duration) Setting[time.Duration] {
			return Set(d, name+" "+spec, "chain", pos)
		}
		if p.idle > 0 {
			h.IdleTimeout = set(p.idle)
		}
		h.CancelsOnDisconnect = Set(p.cancels, name+" "+spec, "chain", pos)
		return h, nil
	}
	d, err := ParseDuration(spec)
	if err != nil {
		return nil, fmt.Errorf("%q is neither a backend preset (%s) nor a duration", spec, strings.Join(BackendPresets(), ", "))
	}
	return &Hop{
		Kind: HopBackend, Name: "the backend",
		IdleTimeout: Set(d, name+" "+spec, "chain", pos),
	}, nil
}
