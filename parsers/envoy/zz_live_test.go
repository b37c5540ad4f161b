package envoy

import (
	"os"
	"runtime"
	"testing"
)

func heapMB() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc >> 20
}

func TestZZLive(t *testing.T) {
	path := os.Getenv("ZZFILE")
	if path == "" {
		t.Skip()
	}
	src, _ := os.ReadFile(path)
	t.Logf("src %d MB, heap %d", len(src)>>20, heapMB())
	docs, _, _ := readTree(path, src)
	t.Logf("tree only: %d", heapMB())
	cs := comments(path, src)
	t.Logf("comments: %d (%d)", heapMB(), len(cs))
	runtime.KeepAlive(docs)
	docs = nil
	t.Logf("tree dropped: %d", heapMB())
	res := Read(path, src, Options{})
	t.Logf("after Read: %d", heapMB())
	proxies, _ := Join(res.Parts)
	t.Logf("after Join: %d", heapMB())
	res.Parts = nil
	t.Logf("parts dropped: %d (%d proxies)", heapMB(), len(proxies))
	runtime.KeepAlive(proxies)
	runtime.KeepAlive(res)
}
