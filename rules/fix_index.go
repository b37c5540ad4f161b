package rules

import (
	"strings"
	"sync"

	"github.com/proxylint/proxylint/model"
)

// sourceIndex answers the questions the fixes ask of the model's files
// for every finding they repair: does any file set this directive or use
// this variable (asked of the files' editors), which file has this path,
// which upstream names are taken. Each answer would otherwise read every source or every upstream,
// and a large configuration has thousands of findings. One index serves
// one run of the rules (Check makes it, every pass shares it), so each
// answer is worked out once per run and nothing outlives the run.
type sourceIndex struct {
	// mu guards the answers: the rules of a run ask from several
	// goroutines.
	mu    sync.Mutex
	files []*model.File
	// held keeps the answers of anyConf, by question.
	held map[string]bool
	// byPath says where a file is.
	byPath map[string]*model.File
	// names holds, per proxy, the lower-cased names of its upstreams and
	// the hosts of their first servers: names a new upstream must avoid.
	names map[*model.Proxy]map[string]bool
}

// upstreamNames returns the names a new upstream block of p must avoid.
func (ix *sourceIndex) upstreamNames(p *model.Proxy) map[string]bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.names == nil {
		ix.names = map[*model.Proxy]map[string]bool{}
	}
	if n, ok := ix.names[p]; ok {
		return n
	}
	n := make(map[string]bool, 2*len(p.Upstreams))
	for _, u := range p.Upstreams {
		n[strings.ToLower(u.Name)] = true
		if len(u.Servers) > 0 {
			n[strings.ToLower(u.Servers[0].Address.Host)] = true
		}
	}
	ix.names[p] = n
	return n
}

func newSourceIndex(files []*model.File) *sourceIndex {
	return &sourceIndex{files: files, held: map[string]bool{}}
}

// file returns the file at path that has a source, as the model lists it
// first.
func (ix *sourceIndex) file(path string) *model.File {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.byPath == nil {
		ix.byPath = make(map[string]*model.File, len(ix.files))
		for _, f := range ix.files {
			if _, ok := ix.byPath[f.Path]; !ok && f.Source != nil {
				ix.byPath[f.Path] = f
			}
		}
	}
	return ix.byPath[path]
}

// anyConf reports whether q holds for any nginx file of the run, asking
// each file once per key: a file its editor cannot read answers yes, so
// that a fix that needs the answer no is not offered.
func (ix *sourceIndex) anyConf(key string, q func(model.ConfEditor) (bool, error)) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if v, ok := ix.held[key]; ok {
		return v
	}
	v := false
	for _, f := range ix.files {
		ed, ok := f.Conf()
		if !ok {
			continue
		}
		if yes, err := q(ed); yes || err != nil {
			v = true
			break
		}
	}
	ix.held[key] = v
	return v
}
