package rules

import (
	"fmt"

	"github.com/proxylint/proxylint/model"
)

// ClientAbortIgnoredBroadly flags *_ignore_client_abort on set at http or
// server level, where every location inherits it.
var ClientAbortIgnoredBroadly = &Rule{
	ID:       "client-abort-ignored-broadly",
	Summary:  "*_ignore_client_abort on at http or server level: every abandoned request runs to the end and is logged as a success",
	Severity: model.Warning,
	Tags:     []string{"nginx", "logging", "load"},
	Products: nginxFamily,
	Check:    checkClientAbortIgnoredBroadly,
}

func checkClientAbortIgnoredBroadly(pass *Pass) {
	for _, p := range pass.Model.Proxies {
		for _, r := range p.Routes() {
			ica := r.IgnoreClientAbort
			if r.Forward == nil || !ica.Explicit() || !ica.Value || (ica.Level() != "http" && ica.Level() != "server") {
				continue
			}
			pass.Report(Finding{
				Pos: ica.Pos(),
				Message: fmt.Sprintf("%s on at %s level applies to every location below it: when a client goes away, nginx keeps the request running, "+
					"logs the status the backend returns (200) instead of 499, and the backend finishes work nobody will read.",
					ica.Name(), ica.Level()),
				Related: []Related{{Pos: r.Pos, Message: "inherited by " + routeName(r)}},
				Fix:     Advice(fmt.Sprintf("set %s on only in the locations whose work must finish even without a client (uploads, webhooks), and remove it here", ica.Name())),
			})
		}
	}
}
