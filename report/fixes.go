package report

import (
	"strings"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// fixedLines renders an edit as the lines it changes, before and after:
// the whole lines around the edited bytes. ok is false when the file is
// not known or the edit lies outside it.
func (in *Input) fixedLines(e rules.Edit) (before, after []string, ok bool) {
	src, known := in.source(e.File)
	if !known || e.Start < 0 || e.End < e.Start || e.End > len(src) {
		return nil, nil, false
	}
	ls := strings.LastIndexByte(src[:e.Start], '\n') + 1
	le := len(src)
	insertion := e.Start == e.End
	wholeLines := insertion && e.Start == ls
	if wholeLines {
		le = ls // an insertion of whole lines changes none
	} else if j := strings.IndexByte(src[e.End:], '\n'); j >= 0 {
		le = e.End + j + 1
	}
	old := src[ls:le]
	nw := src[ls:e.Start] + e.New + src[e.End:le]
	return splitKeep(old), splitKeep(nw), true
}

func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, "\r\n")
	}
	return lines
}

// editRange returns the positions an edit starts and ends at.
func (in *Input) editRange(e rules.Edit) (model.Pos, model.Pos, bool) {
	for _, f := range in.Files {
		if f.Path == e.File && f.Source != nil {
			if e.Start < 0 || e.End < e.Start || e.End > len(f.Source) {
				return model.Pos{}, model.Pos{}, false
			}
			return f.PosAt(e.Start), f.PosAt(e.End), true
		}
	}
	return model.Pos{}, model.Pos{}, false
}

// filePos is where an edit starts, for its heading.
func (in *Input) filePos(e rules.Edit) model.Pos {
	if p, _, ok := in.editRange(e); ok {
		return p
	}
	return model.Pos{File: e.File}
}
