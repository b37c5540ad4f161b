package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// BaselineVersion is the version of the baseline file's format.
const BaselineVersion = 1

// Baseline is a set of known findings, identified by fingerprint: the
// findings a team accepted when it adopted proxylint, so that only new
// ones fail the run.
type Baseline struct {
	known map[string]bool
}

// baselineDoc is the file. Only fingerprints matter; rule, file and
// message are there for people reviewing the file in a diff.
type baselineDoc struct {
	Version  int             `json:"version"`
	Tool     string          `json:"tool"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	File        string `json:"file"`
	Message     string `json:"message"`
}

// WriteBaseline records every unsuppressed finding that a baseline may
// hide (see Hideable), sorted by file, rule and fingerprint so that the
// file diffs well.
func WriteBaseline(w io.Writer, in *Input) (int, error) {
	fps := in.fingerprints()
	doc := baselineDoc{Version: BaselineVersion, Tool: "proxylint", Findings: []baselineEntry{}}
	for i, f := range in.Findings {
		if f.Suppression != nil || f.Unread {
			continue
		}
		doc.Findings = append(doc.Findings, baselineEntry{Fingerprint: fps[i], Rule: f.Rule, File: in.RelPath(f.Pos.File), Message: f.Message})
	}
	sort.SliceStable(doc.Findings, func(i, j int) bool {
		a, b := doc.Findings[i], doc.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Fingerprint < b.Fingerprint
	})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return len(doc.Findings), enc.Encode(doc)
}

// ReadBaseline reads a file written by WriteBaseline.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	var doc baselineDoc
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not a proxylint baseline: invalid JSON at byte %d: %w", se.Offset, err)
		}
		return nil, fmt.Errorf("not a proxylint baseline: %w", err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("not a proxylint baseline: more follows the JSON document, at byte %d", end)
	}
	if doc.Version != BaselineVersion {
		return nil, fmt.Errorf("baseline version %d is not supported (want %d); write it again with --write-baseline", doc.Version, BaselineVersion)
	}
	b := &Baseline{known: make(map[string]bool, len(doc.Findings))}
	for _, e := range doc.Findings {
		if e.Fingerprint == "" {
			return nil, errors.New("not a proxylint baseline: a finding has no fingerprint")
		}
		b.known[e.Fingerprint] = true
	}
	return b, nil
}

// Len is the number of findings the baseline knows.
func (b *Baseline) Len() int { return len(b.known) }

// Knows reports whether the baseline records a fingerprint.
func (b *Baseline) Knows(fingerprint string) bool { return b.known[fingerprint] }
