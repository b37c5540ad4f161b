package nginx

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// invalidTime is parseTime's error, made only for an invalid value: valid
// values are read once for each route that inherits them.
func invalidTime(s string) error { return fmt.Errorf("invalid time %q", s) }

// uncounted is what parseTime reads a time nginx takes but time.Duration
// cannot hold as: the longest Duration. No parsed time equals it (every
// one is whole milliseconds); the checker refuses it with a positioned
// error (checker.tooLong) rather than let the rules add it up.
const uncounted = time.Duration(math.MaxInt64)

// parseTime reads an nginx time value as ngx_parse_time (src/core/
// ngx_parse.c) does for millisecond settings, every timeout proxylint
// reads: numbers with units w, d, h, m, s, ms in strictly decreasing order
// ("1h30m", "2s 500ms"); a trailing bare number is seconds. Years and
// months are refused, as nginx refuses them for millisecond values. Like
// nginx it counts milliseconds in a signed 64-bit integer and refuses
// what does not fit (nginx -t: "invalid value"): a number of more than
// 2^63-1, a part larger than 2^63-1 ms divided by its unit, or a total
// above 2^63-1 ms. A value nginx takes that time.Duration cannot hold
// (above about 292 years) is read as uncounted.
func parseTime(s string) (time.Duration, error) {
	const (
		stStart = iota
		stWeek
		stDay
		stHour
		stMin
		stSec
		stMsec
		stLast
	)
	const maxInt = math.MaxInt64 // NGX_MAX_INT_T_VALUE on 64-bit systems
	var total, value int64
	step, valid := stStart, false
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c >= '0' && c <= '9' {
			d := int64(c - '0')
			if value >= maxInt/10 && (value > maxInt/10 || d > maxInt%10) {
				return 0, invalidTime(s)
			}
			value = value*10 + d
			valid = true
			continue
		}
		var next int
		var secs int64 // the unit in seconds; 0 for milliseconds
		switch c {
		case 'w':
			next, secs = stWeek, 7*24*60*60
		case 'd':
			next, secs = stDay, 24*60*60
		case 'h':
			next, secs = stHour, 60*60
		case 'm':
			if i < len(s) && s[i] == 's' {
				i++
				next = stMsec
			} else {
				next, secs = stMin, 60
			}
		case 's':
			next, secs = stSec, 1
		case ' ':
			if step >= stSec {
				return 0, invalidTime(s)
			}
			next, secs = stLast, 1
		default:
			return 0, invalidTime(s)
		}
		if next != stLast && step >= next {
			return 0, invalidTime(s)
		}
		step = next
		limit, scale := int64(maxInt), int64(1)
		if secs > 0 {
			limit, scale = maxInt/secs/1000, secs*1000
		}
		if value > limit {
			return 0, invalidTime(s)
		}
		value *= scale
		if total > maxInt-value {
			return 0, invalidTime(s)
		}
		total += value
		value = 0
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	if !valid {
		return 0, invalidTime(s)
	}
	if value > maxInt/1000 {
		return 0, invalidTime(s)
	}
	value *= 1000
	if total > maxInt-value {
		return 0, invalidTime(s)
	}
	total += value
	if total > math.MaxInt64/int64(time.Millisecond) {
		return uncounted, nil
	}
	return time.Duration(total) * time.Millisecond, nil
}

// parseAddress reads host[:port], [v6]:port, *:port, port or unix:path as
// listen, server and *_pass directives write them. defPort is used when no
// port is given (0 to leave it unset).
func parseAddress(s string, defPort int) (model.Address, error) {
	var a model.Address
	if rest, ok := strings.CutPrefix(s, "unix:"); ok {
		a.Unix = rest
		return a, nil
	}
	// Only a signed run of digits can be a number: a host is not given to
	// Atoi, whose error for it is an allocation.
	if signedDigits(s) {
		if n, err := strconv.Atoi(s); err == nil {
			if n <= 0 || n > 65535 {
				return a, fmt.Errorf("invalid port %q", s)
			}
			a.Port = n
			return a, nil
		}
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return a, fmt.Errorf("invalid address %q", s)
		}
		host = s[1:end]
		if rest := s[end+1:]; rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return a, fmt.Errorf("invalid address %q", s)
			}
			port = rest[1:]
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		host, port = s[:i], s[i+1:]
	}
	a.Host = host
	a.Port = defPort
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n <= 0 || n > 65535 {
			return a, fmt.Errorf("invalid port in %q", s)
		}
		a.Port = n
	}
	return a, nil
}

// signedDigits reports whether s is what strconv.Atoi can read: an
// optional sign and at least one decimal digit.
func signedDigits(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isLiteralHost reports whether h is an IP literal (one peer once resolved).
func isLiteralHost(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil
}

// domainName reports whether h reads as a DNS name with a domain
// ("avatars.example.org", "api.internal"): labels of letters, digits and
// hyphens, the last of two letters or more. Upstream blocks are named
// like hosts of one label ("backend", "app-workhorse") far more often.
func domainName(h string) bool {
	labels := strings.Split(strings.ToLower(h), ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	tld := labels[len(labels)-1]
	return len(tld) >= 2 && strings.Trim(tld, "abcdefghijklmnopqrstuvwxyz") == ""
}

// onOff reads nginx's flag values.
func onOff(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "on":
		return true, true
	case "off":
		return false, true
	}
	return false, false
}
