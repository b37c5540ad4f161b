package rules

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/proxylint/proxylint/model"
)

// The fixes of findings in Kubernetes manifests: the setting a finding
// names is a field of a resource (an annotation, a ConfigMap key, a field
// of a VirtualServer, a VirtualService or a Middleware), and the fix edits
// that field through the manifest's editor (parsers/kube, written in the
// manifest's own style). Each rule calls these from its own file.

// field returns the editor of the manifest holding p and the field whose
// key or value starts at p.
func (x *fixer) field(p model.Pos) (model.TreeEditor, model.Node) {
	ed := x.tree(p)
	if ed == nil {
		return nil, model.Node{}
	}
	n, ok := ed.Node(p)
	if !ok || n.Key == "" {
		x.fail()
		return nil, model.Node{}
	}
	return ed, n
}

// dropWord removes the word w from the string value at p, a list of
// words separated by blanks ("error timeout non_idempotent", as an
// ingress-nginx annotation or a VirtualServer's next-upstream writes
// them); the value must keep another word.
func (x *fixer) dropWord(p model.Pos, w string) {
	ed, n := x.field(p)
	if ed == nil {
		return
	}
	words := strings.Fields(n.Text)
	var kept []string
	for _, v := range words {
		if v != w {
			kept = append(kept, v)
		}
	}
	if n.Kind != model.StringValue || len(kept) == len(words) || len(kept) == 0 {
		x.fail()
		return
	}
	x.take(ed.SetValue(p, model.String(strings.Join(kept, " "))))
}

// setValue replaces the value at p, of the kind of v, with v.
func (x *fixer) setValue(p model.Pos, v model.Value) {
	ed, n := x.field(p)
	if ed == nil {
		return
	}
	if n.Kind != v.Kind {
		x.fail()
		return
	}
	x.take(ed.SetValue(p, v))
}

// removeField deletes the field at p, with its value.
func (x *fixer) removeField(p model.Pos) {
	ed, n := x.field(p)
	if ed == nil {
		return
	}
	x.take(ed.RemoveField(n.KeyPos))
}

// nextUpstreamFields adds the bounds of a location's retries that a
// Kubernetes resource lacks, beside the field at p that sets the other
// bound or the retry conditions: "proxy-next-upstream-tries" and
// "proxy-next-upstream-timeout" beside an ingress-nginx or NGINX Ingress
// Controller annotation or ConfigMap key, "next-upstream-tries" and
// "next-upstream-timeout" beside a VirtualServer upstream's field. The
// names are those of the field at p with its last word changed, so
// they are in the same mapping and read at the same level. Annotations
// and ConfigMap data are strings, and a time there is whole seconds (the
// ingress-nginx controller reads proxy-next-upstream-timeout as an
// integer, config.go; nginx reads "60" as 60 seconds); a VirtualServer
// writes tries as a number and times with their unit. It returns what it
// wrote, for the fix's message.
// The names are read from a generated file too, for the advice that
// replaces the edit there; the edit is made only where fixer.file allows.
func (x *fixer) nextUpstreamFields(p model.Pos, strings_ bool, tries bool, timeout time.Duration) []string {
	var n model.Node
	if ted, ok := x.sources.file(p.File).Tree(); ok {
		n, ok = ted.Node(p)
		if !ok {
			n = model.Node{}
		}
	}
	base, ok := nextUpstreamBase(n.Key)
	if !ok {
		x.fail()
		return nil
	}
	type add struct {
		key string
		v   model.Value
	}
	var adds []add
	if tries {
		v := model.Number("2")
		if strings_ {
			v = model.String("2")
		}
		adds = append(adds, add{base + "-tries", v})
	}
	if timeout > 0 {
		secs := int((timeout + time.Second - 1) / time.Second)
		v := model.String(strconv.Itoa(secs) + "s")
		if strings_ {
			v = model.String(strconv.Itoa(secs))
		}
		adds = append(adds, add{base + "-timeout", v})
	}
	var what []string
	// Each field goes after the one before it: insert in reverse order
	// after the field at p.
	if ed := x.tree(p); ed != nil {
		for i := len(adds) - 1; i >= 0; i-- {
			x.take(ed.InsertField(n.KeyPos, model.After, adds[i].key, adds[i].v))
		}
	}
	for _, a := range adds {
		what = append(what, fmt.Sprintf("%s: %s", a.key, yamlScalar(a.v)))
	}
	return what
}

// nextUpstreamBase is the name of a next-upstream field without its last
// word: "nginx.ingress.kubernetes.io/proxy-next-upstream" for the
// annotation of the retry conditions, its tries and its timeout alike.
func nextUpstreamBase(key string) (string, bool) {
	base := strings.TrimSuffix(strings.TrimSuffix(key, "-tries"), "-timeout")
	return base, strings.HasSuffix(base, "next-upstream")
}

func yamlScalar(v model.Value) string {
	if v.Kind == model.StringValue {
		return strconv.Quote(v.Text)
	}
	return v.Text
}

// generatedFix is the advice for a finding in a generated file that is
// not a config dump: the change, and where it is to be written.
// also, when set, says where the proxy's configuration is written in
// the terms of its control plane.
func generatedFix(gen string, pos model.Pos, change, also string) Fix {
	where := "in what its generator reads, or in the generator's settings"
	if strings.Contains(gen, "Helm") {
		where = "in the chart, in the template it was rendered from or in the chart's values that template reads"
	}
	if also != "" {
		where += " (" + also + ")"
	}
	f := Advice(fmt.Sprintf("%s is %s, so an edit there is lost the next time it is written. Make the change %s: %s",
		filepath.Base(pos.File), gen, where, change))
	f.placed = true
	return f
}

// inGenerated is the fix of a finding as reported: the advice of a
// finding in a generated file that is not a config dump (whose rules say
// where its policy is written themselves) names where the change belongs,
// whichever rule reported it. A fix never edits a generated file (the
// fixer refuses it), so a rule gives its fix's words as advice there
// (Fix.Or) and this says where to write them, unless the rule already
// has (Fix.placed).
func inGenerated(pass *Pass, f Finding) Fix {
	if f.Fix.Message == "" || len(f.Fix.Edits) > 0 || pass.sources == nil {
		return f.Fix
	}
	gen := generatedBy(pass, f.Pos)
	if gen == "" || strings.Contains(gen, "config dump") || f.Fix.placed {
		return f.Fix
	}
	return generatedFix(gen, f.Pos, f.Fix.Message, "")
}
