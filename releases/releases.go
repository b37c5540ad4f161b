// Package releases is the table of what changes between releases of the
// proxies and control planes proxylint models: a default that changes, a
// directive, field or value that appears or is refused, a bug that a
// release range has. Each change names the releases that made it and where
// that is recorded (nginx's CHANGES, Envoy's and Istio's changelogs, the
// source at a release tag).
//
// The loaders read the table wherever what they build depends on the
// release (releases.UpstreamKeepalive.In(target)), and proxylint upgrade
// reads the same table to say what changes for a configuration between two
// releases: a release-dependent default cannot be added without appearing
// in the upgrade report (the tests of this package hold every release
// comparison of the code to the table, and those of package upgrade hold
// every change to a way of finding where it touches a configuration).
package releases

import (
	"fmt"
	"slices"

	"github.com/proxylint/proxylint/model"
)

// Kind says what sort of change a Change is.
type Kind string

// Kinds of change.
const (
	// Default: what the proxy does when the configuration says nothing
	// changes.
	Default Kind = "default"
	// Added: a directive, parameter, field or value appears; older
	// releases refuse or ignore it.
	Added Kind = "added"
	// Removed: a directive, field or value is refused from the release.
	Removed Kind = "removed"
	// A deprecated directive, parameter or field is still accepted, with
	// a warning.
	Deprecated Kind = "deprecated"
	// Bug: the releases of the range behave wrongly; the release after
	// it fixed them.
	Bug Kind = "bug"
)

// Release is one product's adoption of a change.
type Release struct {
	Product model.Product
	// Since is the first release with the change.
	Since model.Version
	// Until, when set, is the first release without it again (the fix of
	// a Bug).
	Until model.Version
	// Source is where the change is recorded: the CHANGES entry or
	// changelog line, and the source at release tags that shows it.
	Source string
}

// Change is one difference between releases.
type Change struct {
	// ID names the change in reports (JSON "change").
	ID   string
	Kind Kind
	// Subject is what changes, as a reader looks it up: "proxy_http_version".
	Subject string
	// Before and After say what the releases before and from the change
	// do (for a Bug: with the bug, and fixed).
	Before, After string
	// Keep is what keeps the old behaviour on the newer releases, and
	// Adopt what gives the new one on the older releases (directives or
	// fields as written), where there is such a thing.
	Keep, Adopt string
	// Names are the directives, parameters, fields, values or type URL
	// prefixes the change is about, where it is about names: the loaders
	// and the upgrade report find the configuration's uses by them.
	Names []string
	// Releases are the products that made the change, and when.
	Releases []Release
}

// For returns the change's release for product p.
func (c *Change) For(p model.Product) (Release, bool) {
	for _, r := range c.Releases {
		if r.Product == p {
			return r, true
		}
	}
	return Release{}, false
}

// Since is the first release of product p with the change; zero when p
// did not make it.
func (c *Change) Since(p model.Product) model.Version {
	r, _ := c.For(p)
	return r.Since
}

// In reports whether every release target t stands for has the change:
// t's product made it, every release of t is Since or newer and, for a
// change that a later release undid (Until), older than Until. A target
// that reaches the newest release never has such a change.
func (c *Change) In(t model.Target) bool {
	r, ok := c.For(t.Product)
	if !ok || !t.AtLeast(r.Since.Major, r.Since.Minor, r.Since.Patch) {
		return false
	}
	if r.Until.IsZero() {
		return true
	}
	switch {
	case !t.Version.IsZero():
		return t.Version.Less(r.Until)
	case !t.Before.IsZero():
		return !r.Until.Less(t.Before)
	}
	return false
}

// Named reports whether name is among the change's Names.
func (c *Change) Named(name string) bool { return slices.Contains(c.Names, name) }

// All lists every change, in the order of the table.
func All() []*Change { return slices.Clone(table) }

// Lookup finds a change by its ID.
func Lookup(id string) (*Change, bool) {
	for _, c := range table {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}

// Of lists the changes that product p made, in the order of the table.
func Of(p model.Product) []*Change {
	var out []*Change
	for _, c := range table {
		if _, ok := c.For(p); ok {
			out = append(out, c)
		}
	}
	return out
}

// Full writes v with all three numbers, "1.12.0", as release notes name a
// release.
func Full(v model.Version) string {
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}
