// Package lsp is proxylint's language server ("proxylint lsp"): the
// findings of the rules as diagnostics while a configuration is edited,
// their fixes and a suppression as code actions, the effective values of
// the model on hover, and the way from a pass directive or a route's
// cluster to the upstream it names.
//
// A document is linted in the context of its workspace, as "proxylint
// DIR" lints it, DIR being the document's directory: a fragment through
// the main configuration that includes it, an xDS file with the others
// beside it, a manifest joined with the others, under the .proxylint.yaml
// nearest above it. The open documents' texts, saved or not, are given to
// the loaders as an overlay (load.Options.Overlay): nothing is written to
// the workspace. The pipeline is the command line's (package lint), so
// the editor and CI say the same.
//
// The protocol's types and its JSON-RPC connection are go.lsp.dev/protocol
// and go.lsp.dev/jsonrpc2: the types are generated from the protocol's
// meta-model (LSP 3.18), a union is a sealed interface the compiler keeps
// closed, the payloads are encoded without reflection, and the modules
// are maintained and bring one dependency of their own (a JSON package).
// A hand-written subset of the types would drift from the specification;
// the other maintained library, tliron/glsp, has hand-written 3.16 types
// and more dependencies. The server reads the frames itself so that a
// message that is not JSON-RPC gets an error response instead of ending
// the connection, and handles messages in the order they come.
package lsp
