package envoy

import (
	"bytes"
	"compress/gzip"
	_ "embed" // schemaData
	"fmt"
	"io"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/runtime/protoimpl"
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
//
// Each file is built from its bytes by protobuf's own builder of
// descriptors (the one generated packages use), not through protodesc and
// descriptorpb messages: protodesc is then not linked, and its package
// initialisation (with that of gofeaturespb), 6% of the CPU time of
// linting a 10-server nginx tree, is not paid by every run.
// TestSchemaBuiltAsByProtodesc holds the two builds equal.
func buildSchema(data []byte) (*schema, error) {
	raw, err := gunzipSchema(data)
	if err != nil {
		return nil, err
	}
	files, err := buildFiles(raw)
	if err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	return &schema{files: files, Types: dynamicpb.NewTypes(files)}, nil
}

// gunzipSchema returns the FileDescriptorSet that data compresses.
func gunzipSchema(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("envoy schema: %w", err)
	}
	return raw, nil
}

// Field numbers of FileDescriptorSet and FileDescriptorProto.
const (
	setFileField        = 1 // FileDescriptorSet.file
	fileNameField       = 1 // FileDescriptorProto.name
	fileDependencyField = 3 // FileDescriptorProto.dependency
)

// buildFiles builds the files of the encoded FileDescriptorSet raw, each
// after the files it imports (as protoc and _gen/schema write them), with
// no extension of their options decoded.
func buildFiles(raw []byte) (files *protoregistry.Files, err error) {
	files = new(protoregistry.Files)
	noExtensions := new(protoregistry.Types)
	defer func() {
		// The builder panics on bytes that are not a descriptor.
		if r := recover(); r != nil {
			files, err = nil, fmt.Errorf("a file that is not a descriptor: %v", r)
		}
	}()
	n := 0
	for len(raw) > 0 {
		num, typ, tagLen := protowire.ConsumeTag(raw)
		if tagLen < 0 {
			return nil, protowire.ParseError(tagLen)
		}
		raw = raw[tagLen:]
		if num != setFileField || typ != protowire.BytesType {
			skip := protowire.ConsumeFieldValue(num, typ, raw)
			if skip < 0 {
				return nil, protowire.ParseError(skip)
			}
			raw = raw[skip:]
			continue
		}
		file, fileLen := protowire.ConsumeBytes(raw)
		if fileLen < 0 {
			return nil, protowire.ParseError(fileLen)
		}
		raw = raw[fileLen:]
		if err := checkImports(file, files); err != nil {
			return nil, err
		}
		protoimpl.DescBuilder{RawDescriptor: file, TypeResolver: noExtensions, FileRegistry: files}.Build()
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("no file")
	}
	return files, nil
}

// checkImports reports an error unless every file that the encoded
// FileDescriptorProto file imports is in files already: the builder
// would take a missing one for a placeholder.
func checkImports(file []byte, files *protoregistry.Files) error {
	var name string
	var deps []string
	for b := file; len(b) > 0; {
		num, typ, tagLen := protowire.ConsumeTag(b)
		if tagLen < 0 {
			return protowire.ParseError(tagLen)
		}
		b = b[tagLen:]
		if (num == fileNameField || num == fileDependencyField) && typ == protowire.BytesType {
			v, vLen := protowire.ConsumeBytes(b)
			if vLen < 0 {
				return protowire.ParseError(vLen)
			}
			b = b[vLen:]
			if num == fileNameField {
				name = string(v)
			} else {
				deps = append(deps, string(v))
			}
			continue
		}
		skip := protowire.ConsumeFieldValue(num, typ, b)
		if skip < 0 {
			return protowire.ParseError(skip)
		}
		b = b[skip:]
	}
	for _, dep := range deps {
		if _, err := files.FindFileByPath(dep); err != nil {
			return fmt.Errorf("%s imports %s, which no file before it is", name, dep)
		}
	}
	return nil
}
