package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/proxylint/proxylint/chain"
	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/parsers/load"
)

func TestZZHeap(t *testing.T) {
	root := os.Getenv("ZZTREE")
	if root == "" {
		t.Skip()
	}
	runtime.MemProfileRate = 512
	opts := load.Options{Targets: []model.Target{{Product: model.Nginx}}, IncludeRoots: []string{root}}
	m, _ := load.LoadScoped([]string{root + "/nginx.conf"}, opts)
	chain.AnalyzeModel(m, nil, 0)
	runtime.GC()
	f, _ := os.Create("/tmp/heap.after-load")
	pprof.Lookup("heap").WriteTo(f, 0)
	f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("live %d MB, files %d", ms.HeapAlloc>>20, len(m.Files))
	runtime.KeepAlive(m)
}
