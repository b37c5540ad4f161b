// Command schema writes schema.binpb.gz: the descriptors of the Envoy API
// the loader understands, from which it builds dynamic messages on first
// use instead of linking go-control-plane's generated packages. Run from
// parsers/envoy:
//
//	go run ./_gen/schema
//
// The file is a gzip-compressed google.protobuf.FileDescriptorSet holding
// the files the packages internal/envoyapi links register and every file
// they import, in dependency order, without source info.
//
// This program imports no other package holding .proto files but
// descriptorpb (google/protobuf/descriptor.proto, which validate.proto
// imports anyway) and gofeaturespb (linked by protodesc, and left out
// because no file of Envoy's API imports it).
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	// The packages of Envoy's API whose descriptors the file holds.
	_ "github.com/proxylint/proxylint/parsers/envoy/internal/envoyapi"
)

// modules hold every package listed above; a file registered from one of
// them is there because a listed package needs it.
var modules = []string{
	"github.com/envoyproxy/go-control-plane/",
	"github.com/cncf/xds/go/",
}

func main() {
	out := flag.String("o", "schema.binpb.gz", "file to write")
	flag.Parse()
	set := collect()
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		fail(err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		fail(err)
	}
	// The header carries no name and no time, so the output depends on
	// the descriptors alone.
	if _, err := zw.Write(raw); err != nil {
		fail(err)
	}
	if err := zw.Close(); err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "%s: %d files, %d bytes, %d compressed\n", *out, len(set.File), len(raw), buf.Len())
}

// collect returns the files the linked packages register, each after the
// files it imports. Those are the files of the listed packages, of the
// packages they import, and so on: linking a package registers all its
// files, not only those another imports, and the loader resolves an Any
// against all of them.
func collect() *descriptorpb.FileDescriptorSet {
	byPackage := map[string][]protoreflect.FileDescriptor{}
	var all []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		byPackage[goPackage(fd)] = append(byPackage[goPackage(fd)], fd)
		all = append(all, fd)
		return true
	})
	sort.Slice(all, func(i, j int) bool { return all[i].Path() < all[j].Path() })

	needed := map[string]bool{}
	var link func(pkg string)
	link = func(pkg string) {
		for _, fd := range byPackage[pkg] {
			if needed[fd.Path()] {
				continue
			}
			needed[fd.Path()] = true
			imports := fd.Imports()
			for i := 0; i < imports.Len(); i++ {
				link(goPackage(imports.Get(i).FileDescriptor))
			}
		}
	}
	for _, fd := range all {
		if fromModules(fd) {
			link(goPackage(fd))
		}
	}

	set := &descriptorpb.FileDescriptorSet{}
	written := map[string]bool{}
	var write func(fd protoreflect.FileDescriptor)
	write = func(fd protoreflect.FileDescriptor) {
		if written[fd.Path()] {
			return
		}
		written[fd.Path()] = true
		imports := fd.Imports()
		for i := 0; i < imports.Len(); i++ {
			write(imports.Get(i).FileDescriptor)
		}
		fdp := protodesc.ToFileDescriptorProto(fd)
		fdp.SourceCodeInfo = nil
		set.File = append(set.File, fdp)
	}
	for _, fd := range all {
		if needed[fd.Path()] {
			write(fd)
		} else {
			fmt.Fprintf(os.Stderr, "left out %s, which no listed package needs\n", fd.Path())
		}
	}
	return set
}

// goPackage returns the import path of the Go package holding a file.
func goPackage(fd protoreflect.FileDescriptor) string {
	opts, _ := fd.Options().(*descriptorpb.FileOptions)
	pkg, _, _ := strings.Cut(opts.GetGoPackage(), ";")
	return pkg
}

func fromModules(fd protoreflect.FileDescriptor) bool {
	for _, m := range modules {
		if strings.HasPrefix(goPackage(fd), m) {
			return true
		}
	}
	return false
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "schema:", err)
	os.Exit(1)
}
