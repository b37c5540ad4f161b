package envoy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/proxylint/proxylint/internal/suggest"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/releases"
)

//go:generate sh _gen/gen.sh

// Envoy reads an Any through the descriptor pool of the messages it is
// built with: MessageUtil::loadFromJson (envoyproxy/envoy
// source/common/protobuf/yaml_utility.cc:118-134) parses the whole
// configuration with Protobuf::util::JsonStringToMessage (line 146), which
// fails on a type URL naming a message the pool lacks, and the failure is
// "Unable to parse JSON as proto" (line 132). Envoy builds only the v3
// API: every v3 message records the v2 message it replaced in
// option (udpa.annotations.versioning).previous_message_type (for example
// envoyproxy/envoy api/envoy/extensions/filters/network/
// http_connection_manager/v3/http_connection_manager.proto:44-45). The v2
// packages are "frozen_protos" (envoyproxy/data-plane-api
// versioning/BUILD:389-498): no extension factory is registered for their
// types, and Config::Utility::getAndCheckFactory (envoyproxy/envoy
// source/common/config/utility.h) refuses a typed_config no factory takes:
// "Didn't find a registered implementation for '{}' with type URL: '{}'".
// So an Any whose type is
//   - a frozen v2 message, or a misspelling of a v3 message, is refused by
//     every Envoy build: an error, with the v3 name;
//   - a v3 message proxylint does not know is Envoy's own: kept unchecked;
//   - anything else may be a third-party extension of a custom build
//     (Istio's proxy links its own filters): kept unchecked, noted.

// typeVerdict is what proxylint makes of a type URL it does not know.
type typeVerdict struct {
	bad     bool   // no Envoy build reads it
	suggest string // the message name to use instead, if known
	removed bool   // a message of the v2 API
	// refused is the change from which releases refuse it, when older
	// ones read it; nil when every release refuses it.
	refused *releases.Change
}

// refusedSince reports whether a release of target refuses the type.
func (v typeVerdict) refusedBy(target model.Target) bool {
	return v.bad && (v.refused == nil || v.refused.In(target))
}

var currentSet = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(currentTypes))
	for _, t := range currentTypes {
		m[t] = true
	}
	return m
})

var verdicts sync.Map // message name → typeVerdict

// judgeType classifies the message name of an Any proxylint does not know.
func judgeType(name string) typeVerdict {
	if v, ok := verdicts.Load(name); ok {
		return v.(typeVerdict)
	}
	v := judgeTypeUncached(name)
	verdicts.Store(name, v)
	return v
}

// activeOld are the packages outside v3 that Envoy still develops
// (envoyproxy/data-plane-api versioning/BUILD:58-69, in "active_protos"),
// and the packages of Envoy's contrib extensions (the same file, lines
// 12-48), which go-control-plane's envoy module does not hold.
var activeOld = []string{
	"envoy.extensions.compression.qatzip.compressor.v3alpha.",
	"envoy.extensions.compression.qatzstd.compressor.v3alpha.",
	"envoy.extensions.config.v3alpha.",
	"envoy.extensions.filters.common.workload_discovery.v3.",
	"envoy.extensions.filters.http.alpn.v3.",
	"envoy.extensions.filters.http.checksum.v3alpha.",
	"envoy.extensions.filters.http.dynamo.v3.",
	"envoy.extensions.filters.http.golang.v3alpha.",
	"envoy.extensions.filters.http.istio_stats.v3.",
	"envoy.extensions.filters.http.language.v3alpha.",
	"envoy.extensions.filters.http.peak_ewma.v3alpha.",
	"envoy.extensions.filters.http.peer_metadata.v3.",
	"envoy.extensions.filters.http.sxg.v3alpha.",
	"envoy.extensions.filters.listener.postgres_inspector.v3alpha.",
	"envoy.extensions.filters.network.client_ssl_auth.v3.",
	"envoy.extensions.filters.network.generic_proxy.codecs.kafka.v3.",
	"envoy.extensions.filters.network.golang.v3alpha.",
	"envoy.extensions.filters.network.kafka_broker.v3.",
	"envoy.extensions.filters.network.kafka_mesh.v3alpha.",
	"envoy.extensions.filters.network.metadata_exchange.v3.",
	"envoy.extensions.filters.network.mysql_proxy.v3.",
	"envoy.extensions.filters.network.postgres_proxy.v3alpha.",
	"envoy.extensions.filters.network.rocketmq_proxy.v3.",
	"envoy.extensions.filters.network.sip_proxy.router.v3alpha.",
	"envoy.extensions.filters.network.sip_proxy.tra.v3alpha.",
	"envoy.extensions.filters.network.sip_proxy.v3alpha.",
	"envoy.extensions.load_balancing_policies.peak_ewma.v3alpha.",
	"envoy.extensions.matching.input_matchers.hyperscan.v3alpha.",
	"envoy.extensions.network.connection_balance.dlb.v3alpha.",
	"envoy.extensions.private_key_providers.cryptomb.v3alpha.",
	"envoy.extensions.private_key_providers.kae.v3alpha.",
	"envoy.extensions.private_key_providers.qat.v3alpha.",
	"envoy.extensions.regex_engines.hyperscan.v3alpha.",
	"envoy.extensions.router.cluster_specifier.golang.v3alpha.",
	"envoy.extensions.tap_sinks.udp_sink.v3alpha.",
	"envoy.extensions.upstreams.http.tcp.golang.v3alpha.",
	"envoy.extensions.vcl.v3alpha.",
	// v3 packages of go-control-plane that need modules this one does not
	// require (OpenTelemetry's protos, gRPC), so _gen/gen.sh cannot list
	// their messages.
	"envoy.extensions.access_loggers.open_telemetry.v3.",
	"envoy.extensions.stat_sinks.open_telemetry.v3.",
	"envoy.service.",
}

// upgradedUntil120 are the packages of the v2 era that stayed in
// Envoy's active_protos (envoyproxy/envoy api/versioning/BUILD, before
// 1.18) because their extensions were configured with them until each got
// a v3 message (envoyproxy/envoy#13814 and #14907: the fixed heap monitor
// took envoy.extensions.resource_monitors.fixed_heap.v3 for 1.18; on
// 1.17.0 only the v2alpha name worked, envoyproxy/envoy#15070). Their
// typed configs were still upgraded to the v3 message by the API type
// oracle until envoyproxy/envoy#17724 removed it, with the
// --bootstrap-version flag, in 1.20.0 (docs/root/version_history/
// v1.20.0.rst). Since then nothing reads them: a factory is found by the
// type URL among its configTypes(), which TypedFactory
// (envoy/config/typed_config.h) gives as its own config message only, and
// Utility::getAndCheckFactory (source/common/config/utility.h) refuses a
// type no factory takes ("Didn't find a registered implementation for
// '{}' with type URL: '{}'") while envoy.reloadable_features.
// no_extension_lookup_by_name is on, its default; found by name instead,
// MessageUtil::unpackTo (source/common/protobuf/utility.cc) unpacks the
// Any with Any::UnpackTo, which takes only the exact type ("Unable to
// unpack as ...").
// The packages are the Names of releases.V2Upgraded.

func judgeTypeUncached(name string) typeVerdict {
	if currentSet()[name] {
		return typeVerdict{}
	}
	for _, p := range activeOld {
		if strings.HasPrefix(name, p) {
			return typeVerdict{}
		}
	}
	if v3, ok := removedType(name); ok {
		v := typeVerdict{bad: true, suggest: v3, removed: true}
		for _, p := range releases.V2Upgraded.Names {
			if strings.HasPrefix(name, p) {
				v.refused = releases.V2Upgraded
			}
		}
		return v
	}
	if isV2Name(name) {
		s := nearestType(name)
		if s == "" {
			s = nearestRemoved(name)
		}
		return typeVerdict{bad: true, removed: true, suggest: s}
	}
	if strings.HasPrefix(name, "envoy.") || strings.HasPrefix(name, "udpa.") || strings.HasPrefix(name, "xds.") {
		if s := nearestType(name); s != "" {
			return typeVerdict{bad: true, suggest: s}
		}
	}
	return typeVerdict{}
}

// isV2Name reports whether name is in one of Envoy's versioned packages
// older than v3 (envoy.config.filter.http.lua.v2.Lua, envoy.api.v2.Cluster):
// such packages are not in Envoy any more, whatever the message. A package
// Envoy never had is not one, whatever version it names: third-party
// extensions live in Envoy's namespace too (solo-io's transformation
// filter is envoy.api.v2.filter.http.FilterTransformations, while Envoy's
// v2 HTTP filters were envoy.config.filter.http.*).
func isV2Name(name string) bool {
	if !strings.HasPrefix(name, "envoy.") {
		return false
	}
	pkg := packageOf(name)
	parts := strings.Split(pkg, ".")
	old := false
	for _, p := range parts[1:] {
		if strings.HasPrefix(p, "v2") || p == "v1alpha" || p == "v1alpha1" {
			old = true
		}
	}
	return old && v2Packages()[pkg]
}

// packageOf is the package of a message name: its parts up to the first
// that starts with a capital letter (message names do; package names, by
// protobuf's style, do not).
func packageOf(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		if p != "" && p[0] >= 'A' && p[0] <= 'Z' {
			return strings.Join(parts[:i], ".")
		}
	}
	return name[:max(strings.LastIndexByte(name, '.'), 0)]
}

// v2Packages are the packages of Envoy's v2 API: those of removedTypes.
var v2Packages = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, r := range removedTypes {
		m[packageOf(r.old)] = true
	}
	return m
})

// nearestType finds the v3 message closest in spelling to name: close
// enough to be a typo of it, or the same message in a v3 package.
func nearestType(name string) string {
	limit := 2
	if len(name) > 40 {
		limit = 3
	}
	if s := suggest.Nearest(name, currentTypes, limit); s != "" {
		return s
	}
	// A v2 name without a recorded successor: the v3 message with the same
	// name whose package differs least.
	msg := name[strings.LastIndexByte(name, '.')+1:]
	var same []string
	for _, t := range currentTypes {
		if strings.HasSuffix(t, "."+msg) {
			same = append(same, t)
		}
	}
	if isV2Name(name) && len(same) > 0 {
		sort.SliceStable(same, func(i, j int) bool {
			return suggest.Distance(name, same[i]) < suggest.Distance(name, same[j])
		})
		return same[0]
	}
	return ""
}

// nearestRemoved is the successor of the v2 message closest in spelling
// to name, a misspelt v2 name.
func nearestRemoved(name string) string {
	olds := make([]string, len(removedTypes))
	for i, r := range removedTypes {
		olds[i] = r.old
	}
	if s := suggest.Nearest(name, olds, 2); s != "" {
		v3, _ := removedType(s)
		return v3
	}
	return ""
}

// typeURL writes a message name as the type URL Envoy configurations use.
func typeURL(name string) string { return "type.googleapis.com/" + name }

// badTypeMessage says why Envoy refuses a type URL.
func badTypeMessage(url string, v typeVerdict) string {
	name := typeName(url)
	var msg string
	switch {
	case v.removed && v.refused != nil:
		msg = fmt.Sprintf("%s is a message of Envoy's v2 API, which Envoy no longer reads (since %s)", name, v.refused.Since(model.Envoy))
	case v.removed:
		msg = fmt.Sprintf("%s is a message of Envoy's v2 API, which Envoy no longer reads", name)
	default:
		msg = fmt.Sprintf("unknown type %s: no Envoy build reads it", name)
	}
	if v.suggest != "" {
		msg += fmt.Sprintf("; did you mean %q?", typeURL(v.suggest))
	}
	return msg
}

// extNotes gathers the uses of each extension type proxylint does not know,
// so that each type is noted once per file, listing where it is used.
type extNotes struct {
	byURL map[string]int // type name → index of its note in the loader's diagnostics
	lines map[string][]int
}

// noteUnknown notes one use of an extension type; the first use carries the
// note, later ones add their line to it.
func (l *loader) noteUnknown(u unknownType) {
	name := typeName(u.url)
	if v := judgeType(name); v.refusedBy(l.target) {
		d := errorAt(l.pos(u.n), badTypeMessage(u.url, v))
		d.Fatal = true // what the Any configures is not read
		l.diags = append(l.diags, d)
		return
	}
	if l.ext.byURL == nil {
		l.ext.byURL = map[string]int{}
		l.ext.lines = map[string][]int{}
	}
	line := 0
	if u.n != nil {
		line = int(u.n.line)
	}
	if i, ok := l.ext.byURL[name]; ok {
		l.ext.lines[name] = append(l.ext.lines[name], line)
		l.diags[i].Message = unknownMessage(name, l.ext.lines[name])
		return
	}
	l.ext.byURL[name] = len(l.diags)
	l.ext.lines[name] = []int{line}
	l.diags = append(l.diags, noteAt(l.pos(u.n), unknownMessage(name, l.ext.lines[name])))
}

func unknownMessage(name string, lines []int) string {
	msg := fmt.Sprintf("extension not understood: %s; its settings are kept but not checked", name)
	if len(lines) < 2 {
		return msg
	}
	const shown = 20
	var b strings.Builder
	for i, ln := range lines {
		if i == shown {
			fmt.Fprintf(&b, " and %d more", len(lines)-shown)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(ln))
	}
	return msg + fmt.Sprintf(" (used %d times, at lines %s)", len(lines), b.String())
}

// removedType finds a v2 message name in removedTypes.
func removedType(name string) (v3 string, ok bool) {
	i := sort.Search(len(removedTypes), func(i int) bool { return removedTypes[i].old >= name })
	if i < len(removedTypes) && removedTypes[i].old == name {
		return removedTypes[i].v3, true
	}
	return "", false
}
