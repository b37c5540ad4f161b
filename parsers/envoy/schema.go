package envoy

import (
	"bytes"
	"compress/gzip"
	_ "embed" // schemaData
	"fmt"
	"io"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// schemaData is a gzip-compressed FileDescriptorSet: the files of the Envoy
// API the loader understands and everything they import, written by
// _gen/schema (see gen.sh).
//
//go:embed schema.binpb.gz
var schemaData []byte

// schema is the Envoy API as dynamic types. Its methods make it a
// protoregistry.MessageTypeResolver and ExtensionTypeResolver, usable as
// the Resolver of protojson.UnmarshalOptions, protojson.MarshalOptions
// and proto.UnmarshalOptions, so that an Any is read and written with the
// same types as the message holding it.
type schema struct {
	files *protoregistry.Files
	*dynamicpb.Types
}

var (
	_ protoregistry.MessageTypeResolver   = (*schema)(nil)
	_ protoregistry.ExtensionTypeResolver = (*schema)(nil)
)

// loadSchema returns the schema, built on the first call: building it
// takes milliseconds that runs reading no Envoy file should not pay.
var loadSchema = sync.OnceValues(func() (*schema, error) {
	return buildSchema(schemaData)
})

// buildSchema builds a schema from a compressed FileDescriptorSet. The
// options' extensions are left as the bytes they were written as: decoding
// the protoc-gen-validate rules of every field up front was a third of the
// first build, and internal/pgv reads a type's rules from those bytes when
// the type is first validated.
func buildSchema(data []byte) (*schema, error) {
	set, err := decodeSchema(data, new(protoregistry.Types))
	if err != nil {
		return nil, err
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	return &schema{files: files, Types: dynamicpb.NewTypes(files)}, nil
}

// decodeSchema reads a compressed FileDescriptorSet. The extensions of
// the options (validate.rules, udpa.annotations.*) are decoded with the
// given resolver; those it does not know stay unknown fields. Decoded with
// the global registry, the options hold typed values for the extensions
// the program links: proto.GetExtension(opts, validate.E_Rules) reads them
// as from the generated descriptors. Decoded with the schema as resolver,
// they are dynamic messages, which must not be read with a generated
// extension type: proto.GetExtension panics on the mismatch.
func decodeSchema(data []byte, extensions protoregistry.ExtensionTypeResolver) (*descriptorpb.FileDescriptorSet, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	if err := (proto.UnmarshalOptions{Resolver: extensions}).Unmarshal(raw, set); err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	return set, nil
}
