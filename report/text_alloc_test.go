package report

import (
	"io"
	"testing"

	"github.com/proxylint/proxylint/bench/gen"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
	"github.com/proxylint/proxylint/rules"
)

// The text report writes a finding, its quoted line, notes and fix
// straight to its buffer: a few allocations a finding (its position's
// text, the lines a fix changes), not one per piece printed. On the
// 200-server tree it takes about 7 a finding; formatting every piece
// through fmt and the colour package took 47.
func TestTextAllocationsPerFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and lints a 200-server tree")
	}
	main, err := gen.NginxTree{Servers: 200}.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := load.Load([]string{main}, load.Options{Targets: []model.Target{{Product: model.Nginx}}})
	findings := rules.Run(m, &rules.Options{})
	if len(findings) < 500 {
		t.Fatalf("only %d findings: the tree is not the one meant", len(findings))
	}
	allocs := testing.AllocsPerRun(3, func() {
		in := &Input{Findings: findings, Files: m.Files, Rules: rules.All(), Version: "test", Dir: "/"}
		if err := Text(io.Discard, in, false); err != nil {
			t.Fatal(err)
		}
	})
	if per := allocs / float64(len(findings)); per > 15 {
		t.Errorf("%.1f allocations a finding (%.0f for %d findings), want at most 15", per, allocs, len(findings))
	}
}
