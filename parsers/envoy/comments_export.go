package envoy

import "github.com/proxylint/proxylint/model"

// Comments finds the comments of a YAML file with their positions, for
// other loaders of YAML (Kubernetes manifests) that keep suppressions and
// expectations in comments as Envoy files do.
func Comments(file string, src []byte) []model.Comment { return comments(file, src) }
