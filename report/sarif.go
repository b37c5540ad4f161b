package report

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/proxylint/proxylint/model"
	"github.com/proxylint/proxylint/rules"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the subset
// proxylint writes, shaped for GitHub code scanning: relative URIs under
// %SRCROOT%, regions that start at line 1 or later, partial fingerprints
// that survive unrelated edits, and suppressions for findings an inline
// comment accepts.

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// srcRoot is the base that relative artifact URIs resolve against:
	// the repository root (the checkout, in CI).
	srcRoot = "%SRCROOT%"
	// fingerprintKey names proxylint's stable identity of a result in
	// partialFingerprints.
	fingerprintKey = "proxylint/v1"

	// InformationURI is the project's home page.
	InformationURI = "https://github.com/proxylint/proxylint"
	// docsURI is where each rule's documentation lives, as docs/<id>.md.
	docsURI = InformationURI + "/blob/main/rules/docs/"
)

// RuleDocURI is the address of a rule's documentation in the repository,
// as SARIF's helpUri and an editor's link from a diagnostic give it.
func RuleDocURI(id string) string { return docsURI + id + ".md" }

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	ColumnKind  string            `json:"columnKind"`
	// OriginalURIBaseIDs says where %SRCROOT% was: the repository root.
	OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	HelpURI              string            `json:"helpUri"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           sarifRuleProperty `json:"properties"`
}

type sarifRuleConfig struct {
	Enabled *bool  `json:"enabled,omitempty"`
	Level   string `json:"level"`
}

type sarifRuleProperty struct {
	Tags []string `json:"tags,omitempty"`
	// ProblemSeverity is GitHub's display severity: error, warning or
	// recommendation.
	ProblemSeverity string `json:"problem.severity"`
	Precision       string `json:"precision"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                  `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification   `json:"toolExecutionNotifications,omitempty"`
	Properties                 *sarifInvocationProps `json:"properties,omitempty"`
}

// sarifInvocationProps says which releases the run linted for.
type sarifInvocationProps struct {
	Targets []string  `json:"targets,omitempty"`
	Read    ReadStats `json:"read"`
}

type sarifNotification struct {
	Level          string          `json:"level"`
	Message        sarifText       `json:"message"`
	Locations      []sarifLocation `json:"locations,omitempty"`
	AssociatedRule *sarifRuleRef   `json:"associatedRule,omitempty"`
}

type sarifRuleRef struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           *int              `json:"ruleIndex,omitempty"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []sarifSupp       `json:"suppressions,omitempty"`
	Fixes               []sarifFix        `json:"fixes,omitempty"`
}

// sarifFix is a proposed fix (SARIF 2.1.0 §3.55): the changes to each file
// (§3.56), each a list of replacements (§3.57) whose regions are in the
// file as read.
type sarifFix struct {
	Description     sarifText           `json:"description"`
	ArtifactChanges []sarifArtifactEdit `json:"artifactChanges"`
	Properties      sarifFixProperties  `json:"properties"`
}

// sarifFixProperties say whether proxylint --fix applies the fix: "safe"
// fixes it applies, "unsafe" ones only with --unsafe-fixes.
type sarifFixProperties struct {
	Applicability string `json:"applicability"`
}

type sarifArtifactEdit struct {
	ArtifactLocation sarifArtifact      `json:"artifactLocation"`
	Replacements     []sarifReplacement `json:"replacements"`
}

type sarifReplacement struct {
	// DeletedRegion is a text region in lines and columns (code points,
	// the run's columnKind), every bound written out: an insertion is a
	// region whose end is its start.
	DeletedRegion   sarifEditRegion `json:"deletedRegion"`
	InsertedContent *sarifText      `json:"insertedContent,omitempty"`
}

type sarifEditRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

type sarifLocation struct {
	ID               *int           `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int        `json:"startLine"`
	StartColumn int        `json:"startColumn,omitempty"`
	EndLine     int        `json:"endLine,omitempty"`
	EndColumn   int        `json:"endColumn,omitempty"`
	Snippet     *sarifText `json:"snippet,omitempty"`
}

type sarifSupp struct {
	Kind          string         `json:"kind"`
	Status        string         `json:"status"`
	Justification string         `json:"justification,omitempty"`
	Location      *sarifLocation `json:"location,omitempty"`
}

// SARIF writes the findings as a SARIF 2.1.0 log with one run. Every
// registered rule is described in tool.driver.rules; suppressed findings are
// results with an inSource suppression; files that could not be loaded are
// also tool execution notifications.
func SARIF(w io.Writer, in *Input) error {
	fps := in.fingerprints()
	index := map[string]int{}
	driver := sarifDriver{
		Name:            "proxylint",
		Version:         numericVersion(in.Version),
		SemanticVersion: semver(in.Version),
		InformationURI:  InformationURI,
		Rules:           make([]sarifRule, 0, len(in.Rules)),
	}
	for i, r := range in.Rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRuleOf(r))
	}
	run := sarifRun{
		Tool:       sarifTool{Driver: driver},
		Results:    make([]sarifResult, 0, len(in.Findings)),
		ColumnKind: "unicodeCodePoints",
	}
	if uri := in.srcRootURI(); uri != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifact{srcRoot: {URI: uri}}
	}
	inv := sarifInvocation{ExecutionSuccessful: true}
	inv.Properties = &sarifInvocationProps{Targets: in.Targets, Read: in.Read}
	for _, d := range in.Diagnostics {
		if !d.Fatal {
			continue
		}
		inv.ExecutionSuccessful = false
		n := sarifNotification{Level: "error", Message: sarifText{Text: sentence(d.Message)}}
		if loc := in.sarifLocation(d.Pos); loc != nil {
			n.Locations = []sarifLocation{*loc}
		}
		if i, ok := index[string(d.Code)]; ok {
			n.AssociatedRule = &sarifRuleRef{ID: string(d.Code), Index: i}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	run.Invocations = []sarifInvocation{inv}

	for i, f := range in.Findings {
		res := sarifResult{
			RuleID:              f.Rule,
			Level:               f.Severity.String(),
			Message:             sarifText{Text: resultMessage(f)},
			PartialFingerprints: map[string]string{fingerprintKey: fps[i]},
		}
		if i, ok := index[f.Rule]; ok {
			res.RuleIndex = &i
		}
		loc := in.sarifLocation(f.Pos)
		if loc == nil {
			// Not tied to any file (a problem with the command line):
			// GitHub needs a location, and the nearest is the
			// working directory's root.
			loc = &sarifLocation{PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: ".", URIBaseID: srcRoot}}}
		}
		if reg := loc.PhysicalLocation.Region; reg != nil && f.Pos.Line >= 1 {
			if f.End.IsValid() && f.End.File == f.Pos.File && f.Pos.Before(f.End) {
				reg.EndLine = int(f.End.Line)
				reg.EndColumn = int(max(f.End.Col, 1))
			}
			reg.Snippet = in.snippet(f.Pos, *reg)
		}
		res.Locations = []sarifLocation{*loc}
		for j, r := range f.Related {
			id := j + 1
			rl := in.sarifLocation(r.Pos)
			if rl == nil {
				// A place outside any file (a command-line flag):
				// the message alone says where.
				rl = &sarifLocation{}
			}
			rl.ID = &id
			rl.Message = &sarifText{Text: sentence(r.Message)}
			res.RelatedLocations = append(res.RelatedLocations, *rl)
		}
		if s := f.Suppression; s != nil {
			res.Suppressions = []sarifSupp{{Kind: "inSource", Status: "accepted", Justification: s.Reason, Location: in.sarifLocation(s.Pos)}}
		}
		if fix, ok := in.sarifFix(f); ok {
			res.Fixes = []sarifFix{fix}
		}
		run.Results = append(run.Results, res)
	}

	// Encoding into a buffer first, then indenting, grows one buffer
	// rather than the encoder's step by step.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}); err != nil {
		return err
	}
	var out bytes.Buffer
	out.Grow(buf.Len() + buf.Len()/2)
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return err
	}
	_, err := w.Write(out.Bytes())
	return err
}

func sarifRuleOf(r *rules.Rule) sarifRule {
	sr := sarifRule{
		ID:               r.ID,
		Name:             pascal(r.ID),
		ShortDescription: sarifText{Text: sentence(capitalise(r.Summary))},
		FullDescription:  sarifText{Text: sentence(firstParagraph(r.Doc(), r.Summary))},
		Help:             sarifText{Text: r.Doc(), Markdown: r.Doc()},
		HelpURI:          RuleDocURI(r.ID),
		DefaultConfiguration: sarifRuleConfig{
			Level: r.Severity.String(),
		},
		Properties: sarifRuleProperty{
			Tags:            r.Tags,
			ProblemSeverity: problemSeverity(r.Severity),
			Precision:       "high",
		},
	}
	if r.Off {
		off := false
		sr.DefaultConfiguration.Enabled = &off
	}
	return sr
}

// sarifFix is the finding's edits as one SARIF fix, the edits of each file
// in one artifactChange, ordered as they apply. ok is false when the
// finding has no edits, or an edit is in a file the run did not read or
// lies outside it: a fix is offered whole or not at all.
func (in *Input) sarifFix(f rules.Finding) (sarifFix, bool) {
	if !f.Fix.Applies(rules.Unsafe) {
		return sarifFix{}, false
	}
	desc := sentence(capitalise(f.Fix.Message))
	if f.Fix.Applicability == rules.Unsafe {
		desc = "Unsafe fix (proxylint --fix applies it only with --unsafe-fixes): " + desc
	}
	fix := sarifFix{Description: sarifText{Text: desc}, Properties: sarifFixProperties{Applicability: f.Fix.Applicability.String()}}
	byFile := map[string]int{}
	var edits [][]rules.Edit
	for _, e := range f.Fix.Edits {
		i, seen := byFile[e.File]
		if !seen {
			i = len(edits)
			byFile[e.File] = i
			edits = append(edits, nil)
			fix.ArtifactChanges = append(fix.ArtifactChanges, sarifArtifactEdit{ArtifactLocation: in.artifact(e.File)})
		}
		edits[i] = append(edits[i], e)
	}
	for i, es := range edits {
		// Ordered by where they start, an insertion before a replacement
		// at one place, as rules.ApplyEdits applies them.
		sort.SliceStable(es, func(a, b int) bool {
			x, y := es[a], es[b]
			if x.Start != y.Start {
				return x.Start < y.Start
			}
			return x.Start == x.End && y.Start != y.End
		})
		for _, e := range es {
			start, end, ok := in.editRange(e)
			if !ok {
				return sarifFix{}, false
			}
			r := sarifReplacement{DeletedRegion: sarifEditRegion{StartLine: int(start.Line), StartColumn: int(start.Col), EndLine: int(end.Line), EndColumn: int(end.Col)}}
			if e.New != "" {
				r.InsertedContent = &sarifText{Text: e.New}
			}
			fix.ArtifactChanges[i].Replacements = append(fix.ArtifactChanges[i].Replacements, r)
		}
	}
	return fix, true
}

// sarifLocation is the physical location of pos: a URI relative to
// %SRCROOT% for files below the repository root (Input.Root), an absolute file URI
// for others, and a region that starts at line 1 or later. A position in
// no file yields nil.
func (in *Input) sarifLocation(pos model.Pos) *sarifLocation {
	if pos.File == "" {
		return nil
	}
	art := in.artifact(pos.File)
	// A finding about a whole file (it could not be read) has no line;
	// GitHub needs a region, and line 1 is where the file starts.
	region := &sarifRegion{StartLine: 1}
	if pos.Line >= 1 {
		region.StartLine = int(pos.Line)
		if pos.Col >= 1 {
			region.StartColumn = int(pos.Col)
		}
	}
	return &sarifLocation{PhysicalLocation: &sarifPhysical{ArtifactLocation: art, Region: region}}
}

// maxSnippet bounds a snippet, in code points: a region's text longer
// than that is cut. Without the bound, thousands of findings on one long
// line (a minified file) would each copy the rest of the line.
const maxSnippet = 120

// snippet is the source text of a region on one line, so that viewers
// without the checkout can show it: from the start column to the end
// column, or to the end of the line when the region does not say (SARIF's
// default), and at most maxSnippet code points. Regions over several lines
// get no snippet.
func (in *Input) snippet(pos model.Pos, reg sarifRegion) *sarifText {
	if reg.EndLine != 0 && reg.EndLine != reg.StartLine {
		return nil
	}
	line, ok := in.Line(pos.File, reg.StartLine)
	if !ok {
		return nil
	}
	from := max(reg.StartColumn, 1) - 1
	n := maxSnippet
	if reg.EndColumn > 0 {
		n = min(reg.EndColumn-1-from, n)
	}
	if n <= 0 {
		return nil
	}
	start, ok := in.runeOffset(pos.File, reg.StartLine, line, from)
	if !ok {
		return nil
	}
	end := start
	for k := 0; k < n && end < len(line); k++ {
		_, size := utf8.DecodeRuneInString(line[end:])
		end += size
	}
	if end == start {
		return nil
	}
	return &sarifText{Text: line[start:end]}
}

// runeStride is how many code points apart lineIndex records offsets.
const runeStride = 64

// lineIndex finds code points in a line in constant time: the byte offset
// of every runeStride-th code point, or nothing for an ASCII line, where
// offsets are code points.
type lineIndex struct {
	ascii bool
	marks []int
}

// runeOffset is the byte offset in line (line n of path) of code point i,
// counting from 0, and false past its end.
func (in *Input) runeOffset(path string, n int, line string, i int) (int, bool) {
	key := model.Pos{File: path, Line: int32(n)}
	ix, ok := in.runes[key]
	if !ok {
		ix = &lineIndex{ascii: true}
		for j := 0; j < len(line); j++ {
			if line[j] >= utf8.RuneSelf {
				ix.ascii = false
				break
			}
		}
		if !ix.ascii {
			k := 0
			for off := range line {
				if k%runeStride == 0 {
					ix.marks = append(ix.marks, off)
				}
				k++
			}
		}
		if in.runes == nil {
			in.runes = map[model.Pos]*lineIndex{}
		}
		in.runes[key] = ix
	}
	if ix.ascii {
		return i, i < len(line)
	}
	if i/runeStride >= len(ix.marks) {
		return 0, false
	}
	off := ix.marks[i/runeStride]
	for k := 0; k < i%runeStride; k++ {
		if off >= len(line) {
			return 0, false
		}
		_, size := utf8.DecodeRuneInString(line[off:])
		off += size
	}
	return off, off < len(line)
}

func (in *Input) artifact(path string) sarifArtifact {
	rel := in.rootPath(path)
	if !filepath.IsAbs(filepath.FromSlash(rel)) && !strings.HasPrefix(rel, "../") && rel != ".." {
		return sarifArtifact{URI: (&url.URL{Path: rel}).String(), URIBaseID: srcRoot}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // Windows drive letters
	}
	return sarifArtifact{URI: u.String()}
}

// resultMessage is the finding's message with the fix appended; the
// message's first sentence already stands alone for GitHub.
func resultMessage(f rules.Finding) string {
	msg := sentence(f.Message)
	if f.Fix.Message != "" {
		msg += " Fix: " + sentence(f.Fix.Message)
	}
	return msg
}

// sentence ends s with a full stop unless it already ends a sentence.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	switch s[len(s)-1] {
	case '.', '!', '?':
		return s
	}
	return s + "."
}

func capitalise(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// firstParagraph is the first paragraph of a rule's Markdown doc after its
// title, joined into one line; fallback when the doc has none.
func firstParagraph(doc, fallback string) string {
	var para []string
	for _, line := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "#"):
			if len(para) > 0 {
				return strings.Join(para, " ")
			}
		case t == "":
			if len(para) > 0 {
				return strings.Join(para, " ")
			}
		default:
			para = append(para, t)
		}
	}
	if len(para) > 0 {
		return strings.Join(para, " ")
	}
	return capitalise(fallback)
}

// pascal turns a rule ID into the friendly name SARIF viewers show:
// "upstream-no-keepalive" becomes "UpstreamNoKeepalive".
func pascal(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		b.WriteString(capitalise(part))
	}
	return b.String()
}

func problemSeverity(s model.Severity) string {
	switch s {
	case model.Error:
		return "error"
	case model.Warning:
		return "warning"
	}
	return "recommendation"
}

// semver returns v when it reads as MAJOR.MINOR.PATCH[-pre][+build].
func semver(v string) string {
	core, _, _ := strings.Cut(v, "+")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return ""
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return ""
		}
	}
	return v
}
