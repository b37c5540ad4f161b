package nginx

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// parseTime reads an nginx time value as ngx_parse_time does for
// millisecond settings (every timeout proxylint reads): numbers with units
// w, d, h, m, s, ms in strictly decreasing order ("1h30m", "2s 500ms"); a
// trailing bare number is seconds. Years and months are refused, as nginx
// refuses them for millisecond values.
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
	bad := fmt.Errorf("invalid time %q", s)
	var total, value time.Duration
	step, valid := stStart, false
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c >= '0' && c <= '9' {
			if value > (1<<62)/10 {
				return 0, bad
			}
			value = value*10 + time.Duration(c-'0')
			valid = true
			continue
		}
		var next int
		var unit time.Duration
		switch c {
		case 'w':
			next, unit = stWeek, 7*24*time.Hour
		case 'd':
			next, unit = stDay, 24*time.Hour
		case 'h':
			next, unit = stHour, time.Hour
		case 'm':
			if i < len(s) && s[i] == 's' {
				i++
				next, unit = stMsec, time.Millisecond
			} else {
				next, unit = stMin, time.Minute
			}
		case 's':
			next, unit = stSec, time.Second
		case ' ':
			if step >= stSec {
				return 0, bad
			}
			next, unit = stLast, time.Second
		default:
			return 0, bad
		}
		if next != stLast && step >= next {
			return 0, bad
		}
		step = next
		if unit > 0 && value > (1<<62)/unit {
			return 0, bad
		}
		total += value * unit
		value = 0
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	if !valid {
		return 0, bad
	}
	if value > (1<<62)/time.Second {
		return 0, bad
	}
	return total + value*time.Second, nil
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
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 || n > 65535 {
			return a, fmt.Errorf("invalid port %q", s)
		}
		a.Port = n
		return a, nil
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

// isLiteralHost reports whether h is an IP literal (one peer once resolved).
func isLiteralHost(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil
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
