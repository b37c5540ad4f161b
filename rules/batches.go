package rules

// findingBatches collects findings in batches and hands them over in one
// slice of the right length: a run may report tens of thousands, and a
// slice grown by appending copies them over and over and ends with up to
// twice the room it needs.
type findingBatches struct {
	full [][]Finding
	cur  []Finding
	n    int
}

func (b *findingBatches) add(f Finding) {
	if len(b.cur) == cap(b.cur) {
		if len(b.cur) > 0 {
			b.full = append(b.full, b.cur)
		}
		b.cur = make([]Finding, 0, min(max(2*cap(b.cur), 8), 1024))
	}
	b.cur = append(b.cur, f)
	b.n++
}

// addAll adds the findings of o, in their order.
func (b *findingBatches) addAll(o *findingBatches) {
	for _, batch := range o.full {
		for _, f := range batch {
			b.add(f)
		}
	}
	for _, f := range o.cur {
		b.add(f)
	}
}

// all returns the findings in the order they were added; nil when there
// are none.
func (b *findingBatches) all() []Finding {
	if b.n == 0 {
		return nil
	}
	if len(b.full) == 0 {
		return b.cur
	}
	out := make([]Finding, 0, b.n)
	for _, batch := range b.full {
		out = append(out, batch...)
	}
	return append(out, b.cur...)
}
