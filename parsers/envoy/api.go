package envoy

import (
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// resolver finds the message types of Envoy's API, for protojson and for
// the Anys inside messages.
type resolver interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// apiTypes is the resolver of Envoy's API: the embedded schema, built on
// first use. LoadBytes reports a schema that cannot be built before
// anything asks for a type; past that point it resolves nothing.
func apiTypes() resolver {
	s, err := loadSchema()
	if err != nil {
		return new(protoregistry.Types)
	}
	return s
}

// findMessageType is the type of the named message of Envoy's API, or a
// *SchemaError when the schema has none of that name.
func findMessageType(name protoreflect.FullName) (protoreflect.MessageType, error) {
	mt, err := apiTypes().FindMessageByName(name)
	if err != nil {
		return nil, &SchemaError{Message: name}
	}
	return mt, nil
}
