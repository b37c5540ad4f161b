package load

import "os"

// markHardLinks marks as included each loaded item that is another name
// (a hard link, as `ln sites-available/x sites-enabled/x` makes) of a
// file a loaded configuration includes, or of an item before it: it is
// one file, linted once, through the configuration that includes it, as
// a file reached through a symbolic link is. Only files with several
// names are compared.
func markHardLinks(items []item, included map[string]bool) {
	type candidate struct {
		i  int
		fi os.FileInfo
	}
	var cands []candidate
	for i, it := range items {
		if it.real == "" || included[it.real] {
			continue
		}
		if fi, err := os.Stat(it.real); err == nil && hardLinked(fi) {
			cands = append(cands, candidate{i, fi})
		}
	}
	if len(cands) == 0 {
		return
	}
	for inc := range included {
		fi, err := os.Stat(inc)
		if err != nil || !hardLinked(fi) {
			continue
		}
		for _, c := range cands {
			if items[c.i].real != inc && os.SameFile(fi, c.fi) {
				included[items[c.i].real] = true
			}
		}
	}
	for k, c := range cands {
		for _, d := range cands[:k] {
			if items[c.i].real != items[d.i].real && !included[items[d.i].real] && os.SameFile(c.fi, d.fi) {
				included[items[c.i].real] = true
				break
			}
		}
	}
}
