package envoy

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/parsers/envoy/internal/pgv"
)

// The loader validates the dynamic messages it reads with pgv.ValidateAll;
// the generated ValidateAll methods, linked into this test, are the
// oracle. internal/pgv compares the two on every rule of every type; here
// they are compared on what the loader reads from real files.

type validatorAll interface{ ValidateAll() error }

// envoyFiles lists the Envoy files to decode: the package's testdata, the
// repository's fixtures, and the shared corpus when it is there.
func envoyFiles(t *testing.T) []string {
	var out []string
	for _, dir := range []string{"testdata", "../../fixtures"} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, string(filepath.Separator)+"fuzz"+string(filepath.Separator)) {
				return err
			}
			out = append(out, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range corpusDirs {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		err := filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				out = append(out, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	return out
}

// asGenerated is m, a message the loader read with the embedded schema,
// as the generated Go type of its name.
func asGenerated(t testing.TB, m proto.Message) proto.Message {
	t.Helper()
	mt, err := protoregistry.GlobalTypes.FindMessageByName(m.ProtoReflect().Descriptor().FullName())
	if err != nil {
		t.Fatal(err)
	}
	data, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	g := mt.New().Interface()
	if err := (proto.UnmarshalOptions{AllowPartial: true}).Unmarshal(data, g); err != nil {
		t.Fatal(err)
	}
	return g
}

func errorText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestValidationMatchesGeneratedCodeOnFiles decodes every Envoy file as the
// loader does and compares, on each resource and on every message an Any
// holds, what pgv.ValidateAll says of the loader's message with what the
// generated ValidateAll says of the same message.
func TestValidationMatchesGeneratedCodeOnFiles(t *testing.T) {
	defer rememberUnpacked()()
	srcs := map[string][]byte{}
	for _, p := range envoyFiles(t) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[p] = src
	}
	srcs["generated 8x40"] = gen.EnvoyBootstrap{Listeners: 8, RoutesPerListener: 40, Clusters: 80}.YAML()
	// Real files are mostly valid: these break rules at the root, inside
	// Anys and inside extensions, whether the corpus is there or not.
	srcs["violations.yaml"] = []byte(violationsYAML)
	srcs["violations-root.yaml"] = []byte(rootViolationYAML)
	srcs["extensions.yaml"] = []byte(extensionsBrokenYAML)
	names := make([]string, 0, len(srcs))
	for p := range srcs {
		names = append(names, p)
	}
	sort.Strings(names)
	var files, messages, failing int
	check := func(what string, m proto.Message) {
		messages++
		got := pgv.ValidateAll(m.ProtoReflect())
		var want error
		if v, ok := asGenerated(t, m).(validatorAll); ok {
			want = v.ValidateAll()
		}
		if want != nil {
			failing++
		}
		if errorText(got) != errorText(want) {
			t.Errorf("%s (%s):\ngenerated ValidateAll: %v\npgv.ValidateAll:       %v", what, m.ProtoReflect().Descriptor().FullName(), want, got)
		}
	}
	for _, p := range names {
		src := breakLoneCR(srcs[p])
		if !Detect(p, src) {
			continue
		}
		docs, _, err := readTree(p, src)
		if err != nil {
			continue
		}
		files++
		for _, doc := range docs {
			roots, _ := classify(doc)
			for _, r := range roots {
				m, _, _ := decodeRoot(r.n, messageType(r.mt), r.inDump, r.version)
				if m == nil {
					continue
				}
				check(p, m)
				visitMessage(m.ProtoReflect(), r.n, func(inner protoreflect.Message, _ *node) { check(p+" (Any)", inner.Interface()) })
			}
		}
	}
	t.Logf("%d Envoy files, %d messages (resources and Any payloads), %d with violations", files, messages, failing)
	if messages < 20 || failing < 3 {
		t.Errorf("too little compared: %d messages, %d with violations", messages, failing)
	}
}

// BenchmarkValidate validates the decoded 256-listener bench/gen bootstrap
// (10,240 routes): the generated ValidateAll on generated messages, and
// pgv.ValidateAll on the loader's dynamic messages.
func BenchmarkValidate(b *testing.B) {
	src := gen.EnvoyBootstrap{Listeners: 256, RoutesPerListener: 40, Clusters: 2560}.YAML()
	docs, _, err := readTree("bootstrap.yaml", src)
	if err != nil {
		b.Fatal(err)
	}
	roots, _ := classify(docs[0])
	defer rememberUnpacked()()
	var loaded, generated []proto.Message
	for _, r := range roots {
		m, _, _ := decodeRoot(r.n, messageType(r.mt), r.inDump, r.version)
		loaded = append(loaded, m)
		visitMessage(m.ProtoReflect(), r.n, func(inner protoreflect.Message, _ *node) { loaded = append(loaded, inner.Interface()) })
	}
	for _, m := range loaded {
		generated = append(generated, asGenerated(b, m))
	}
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range generated {
				if v, ok := m.(validatorAll); ok && v.ValidateAll() != nil {
					b.Fatal("invalid")
				}
			}
		}
	})
	b.Run("pgv-dynamic", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range loaded {
				if pgv.ValidateAll(m.ProtoReflect()) != nil {
					b.Fatal("invalid")
				}
			}
		}
	})
}
