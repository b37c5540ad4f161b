package rules

import (
	"fmt"

	"github.com/proxylint/proxylint/model"
)

// PassWithoutResolver flags a pass directive whose host name is computed
// from variables, with no resolver to look it up: every request it passes
// is answered 502.
var PassWithoutResolver = &Rule{
	ID:       "pass-without-resolver",
	Summary:  "a *_pass host name computed from variables with no resolver: nginx answers 502 to every request it passes",
	Severity: model.Error,
	Tags:     []string{"nginx", "upstreams", "dns"},
	Products: nginxFamily,
	Check:    checkPassWithoutResolver,
}

// lookedUpPerRequest are the pass modules whose computed host names nginx
// looks up per request (rules/proof/resolver_test.go).
var lookedUpPerRequest = map[string]bool{"proxy": true, "grpc": true, "fastcgi": true, "uwsgi": true, "scgi": true}

func checkPassWithoutResolver(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, r := range p.Routes() {
			f := r.Forward
			if f == nil || f.Unresolvable == nil || !f.Unresolvable.Valid() || f.Inherited || !lookedUpPerRequest[f.Module] {
				continue
			}
			host := f.Unresolvable.Value
			on := ""
			if n := f.Unresolvable.Note(); n != "" {
				on = " " + n
			}
			msg := fmt.Sprintf("%s %s names the host %s, which nginx looks up when a request comes, and no resolver directive applies here%s: "+
				"every request this location passes fails with a 502 (or what an error_page for 502 makes of it) and reaches no server "+
				"(error log: \"no resolver defined to resolve %s\").",
				f.Name, f.URL, host, on, host)
			pass.Report(Finding{
				Pos:     f.Pos,
				Message: msg,
				Fix: Advice(fmt.Sprintf("set a resolver at http or server level (resolver ADDRESS valid=30s; the DNS server of the network nginx runs in), "+
					"or put %s in an upstream block and set the variable to the block's name, without a port: nginx resolves the block's servers once, when it starts", host)),
			})
		}
	}
}
