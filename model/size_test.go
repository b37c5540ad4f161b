package model

import (
	"testing"
	"time"
	"unsafe"
)

// TestSettingSizes holds the size of a setting: a large configuration's
// model is millions of them, and what they share (the name, level, note
// and file) is held once, not in each.
func TestSettingSizes(t *testing.T) {
	for _, c := range []struct {
		name       string
		size, want uintptr
	}{
		{"Setting[time.Duration]", unsafe.Sizeof(Setting[time.Duration]{}), 24},
		{"Setting[int]", unsafe.Sizeof(Setting[int]{}), 24},
		{"Setting[bool]", unsafe.Sizeof(Setting[bool]{}), 24},
		{"Setting[string]", unsafe.Sizeof(Setting[string]{}), 32},
		{"Setting[[]string]", unsafe.Sizeof(Setting[[]string]{}), 40},
		// What narrowed a Methods is held apart: most routes pass every
		// method.
		{"Methods", unsafe.Sizeof(Methods{}), 64},
		// A route's Envoy knobs hold no Methods of their own unless its
		// retries are narrowed.
		{"EnvoyRoute", unsafe.Sizeof(EnvoyRoute{}), 168},
		// A route is one of the heap's size classes (576 bytes) instead of
		// the 704 it took with settings of 88 bytes and whole Methods.
		{"Route", unsafe.Sizeof(Route{}), 576},
		// A forward holds no setting for a host it cannot look up
		// unless it names one (the 176-byte size class instead of 208).
		{"Forward", unsafe.Sizeof(Forward{}), 176},
	} {
		if c.size > c.want {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.size, c.want)
		}
	}
}

// TestSettingParts checks that a setting gives back what it was made of,
// that its setters change one part only, and that settings made of the
// same parts are equal.
func TestSettingParts(t *testing.T) {
	pos := Pos{File: "nginx.conf", Line: 12, Col: 5}
	s := NewSetting(30*time.Second, "proxy_read_timeout", "http", pos, true, "a note")
	if s.Value != 30*time.Second || s.Name() != "proxy_read_timeout" || s.Level() != "http" || s.Pos() != pos || !s.Default() || s.Note() != "a note" {
		t.Fatalf("NewSetting gave %v %q %q %v %v %q", s.Value, s.Name(), s.Level(), s.Pos(), s.Default(), s.Note())
	}
	if !s.Valid() || s.Explicit() {
		t.Errorf("Valid, Explicit = %v, %v; want true, false", s.Valid(), s.Explicit())
	}
	if s != NewSetting(30*time.Second, "proxy_read_timeout", "http", pos, true, "a note") {
		t.Error("two settings of the same parts differ")
	}
	other := Pos{File: "site.conf", Line: 3, Col: 1}
	for _, c := range []struct {
		name      string
		got, want Setting[time.Duration]
	}{
		{"WithName", s.WithName("proxy_send_timeout"), NewSetting(30*time.Second, "proxy_send_timeout", "http", pos, true, "a note")},
		{"WithLevel", s.WithLevel("server"), NewSetting(30*time.Second, "proxy_read_timeout", "server", pos, true, "a note")},
		{"WithDefault", s.WithDefault(false), NewSetting(30*time.Second, "proxy_read_timeout", "http", pos, false, "a note")},
		{"WithNote", s.WithNote(""), NewSetting(30*time.Second, "proxy_read_timeout", "http", pos, true, "")},
		{"WithPos", s.WithPos(other), NewSetting(30*time.Second, "proxy_read_timeout", "http", other, true, "a note")},
		{"WithPos same file", s.WithPos(Pos{File: "nginx.conf", Line: 1, Col: 2}), NewSetting(30*time.Second, "proxy_read_timeout", "http", Pos{File: "nginx.conf", Line: 1, Col: 2}, true, "a note")},
		{"Set", Set(time.Second, "proxy_read_timeout", "location", pos), NewSetting(time.Second, "proxy_read_timeout", "location", pos, false, "")},
		{"Default", Default(time.Second, "proxy_read_timeout", pos), NewSetting(time.Second, "proxy_read_timeout", "default", pos, true, "")},
		{"no parts", NewSetting(time.Second, "", "", Pos{}, false, ""), Setting[time.Duration]{Value: time.Second}},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v %q %q %v %v %q, want %v %q %q %v %v %q", c.name,
				c.got.Value, c.got.Name(), c.got.Level(), c.got.Pos(), c.got.Default(), c.got.Note(),
				c.want.Value, c.want.Name(), c.want.Level(), c.want.Pos(), c.want.Default(), c.want.Note())
		}
	}
	var zero Setting[int]
	if zero.Valid() || zero.Name() != "" || zero.Pos() != (Pos{}) || zero.Default() {
		t.Error("the zero Setting has parts")
	}
}

// Revalued keeps every part of a setting but its value.
func TestRevaluedKeepsTheParts(t *testing.T) {
	s := NewSetting("a b", "retry-on", "annotation", Pos{File: "x.yaml", Line: 3, Col: 7}, true, "a note")
	got := Revalued(s, []string{"a", "b"})
	if got.Name() != "retry-on" || got.Level() != "annotation" || got.Pos() != s.Pos() || !got.Default() || got.Note() != "a note" {
		t.Errorf("Revalued(%v) = %v %v %v %v %q", s, got.Name(), got.Level(), got.Pos(), got.Default(), got.Note())
	}
	if want := NewSetting([]string{"a", "b"}, "retry-on", "annotation", s.Pos(), true, "a note"); got.about != want.about || got.line != want.line || got.col != want.col {
		t.Errorf("Revalued differs from the setting made of the same parts")
	}
}
