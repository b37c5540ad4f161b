package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A target names a release proxylint models: nginx from the oldest release
// still shipped to the newest the tables know; "newest" and the default
// range are always accepted.
func TestParseTargetModelledNginx(t *testing.T) {
	for _, s := range []string{"nginx", "nginx:newest", "nginx:1.18", "nginx:1.28", "nginx:1.29.7", "nginx:" + NewestNginx.String()} {
		_, err := ParseTarget(s)
		assert.NoError(t, err, s)
	}
	for _, s := range []string{"nginx:1.17", "nginx:1.17.10", "nginx:2.0", "nginx:1.99"} {
		_, err := ParseTarget(s)
		require.Error(t, err, s)
		assert.Equal(t, `target "`+s+`": proxylint models nginx 1.18 to `+NewestNginx.String()+`; name a release in that range, or nginx:newest`, err.Error())
	}
}

// PosAt counts lines and code points as the file's lines stand, whatever
// their ending, at every offset, the file's end included; a file given a
// new source is indexed anew.
func TestPosAt(t *testing.T) {
	f := &File{Path: "f", Source: []byte("ab\r\nçd\n\nx")}
	for off, want := range map[int][2]int32{0: {1, 1}, 2: {1, 3}, 3: {1, 4}, 4: {2, 1}, 6: {2, 2}, 7: {2, 3}, 8: {3, 1}, 9: {4, 1}, 10: {4, 2}, 99: {4, 2}, -1: {1, 1}} {
		p := f.PosAt(off)
		assert.Equal(t, want, [2]int32{p.Line, p.Col}, "offset %d", off)
	}
	assert.Equal(t, "\r\n", f.LineEnding())
	f.Source = []byte("a\nb")
	assert.Equal(t, int32(2), f.PosAt(2).Line)
	assert.Equal(t, "\n", f.LineEnding())
	assert.Equal(t, Pos{File: "e", Line: 1, Col: 1}, (&File{Path: "e"}).PosAt(3))
}
