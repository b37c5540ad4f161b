package envoy

import (
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A key written twice in one JSON object is read again by Envoy's JSON
// reader (mergeAgain), unless it is a member of a oneof: protobuf's
// ParseField records every field it parses and, for a field of a oneof,
// the oneof too, and refuses a oneof seen before, "'%s' has already been
// set (either directly or as part of a oneof)", even with the legacy
// behaviour Envoy runs it with, which lets other fields be written again
// (src/google/protobuf/json/internal/parser.cc:1255-1266 and
// parser_traits.h:81-99, RecordAsSeen, at e712d276; HasParsed with
// allow_repeated_non_oneof in older releases). A null value is passed over
// before it is recorded (parser.cc:1243-1253), so only keys written twice
// with values that are not null are marked (kid.again). Two different
// members of one oneof are refused by protojson as well, so only the same
// key written twice needs the schema here.
//
// YAML differs: Envoy turns a YAML mapping into a Protobuf::Value struct
// key by key, so a key written twice is one key, with its last value, in
// the JSON its reader is given (source/common/protobuf/yaml_utility.cc,
// parseYamlNode, the Map case, code-index id 114781525).

// oneofAgain is a oneof member written twice: dup indexes the file's
// duplicate-key warnings.
type oneofAgain struct {
	dup   int
	first *node // the key where it is first written
	fd    protoreflect.FieldDescriptor
}

// oneofWrittenAgain finds, in the tree n read as md, the keys written twice
// that name a member of a oneof. It follows nested messages, lists, maps
// and Anys of linked types; well-known types hold no oneof Envoy's reader
// sees.
func oneofWrittenAgain(n *node, md protoreflect.MessageDescriptor, found func(oneofAgain)) {
	if n == nil || n.kind != kMap || md == nil {
		return
	}
	if md.FullName() == nameAny {
		_, tv := n.field("@type")
		if tv == nil || tv.kind != kScalar {
			return
		}
		mt, err := apiTypes().FindMessageByURL(tv.text())
		if err != nil {
			return
		}
		md = mt.Descriptor()
	}
	if rawJSON(md) {
		return
	}
	for _, k := range n.kids() {
		if k.dropped || k.key == nil {
			continue
		}
		fd := fieldByName(md, k.key.text())
		if fd == nil {
			continue
		}
		if od := fd.ContainingOneof(); k.again > 0 && od != nil && !od.IsSynthetic() {
			found(oneofAgain{dup: int(k.again) - 1, first: k.key, fd: fd})
		}
		switch {
		case fd.IsMap():
			if vm := fd.MapValue().Message(); vm != nil && k.val.kind == kMap {
				for _, e := range k.val.kids() {
					if !e.dropped {
						oneofWrittenAgain(e.val, vm, found)
					}
				}
			}
		case fd.Message() == nil:
		case fd.IsList():
			for _, it := range k.val.items() {
				oneofWrittenAgain(it, fd.Message(), found)
			}
		default:
			oneofWrittenAgain(k.val, fd.Message(), found)
		}
	}
}
