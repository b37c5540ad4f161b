package envoy

import (
	"fmt"

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

// messageType is the type of the named message of Envoy's API.
func messageType(name protoreflect.FullName) protoreflect.MessageType {
	mt, err := apiTypes().FindMessageByName(name)
	if err != nil {
		panic(fmt.Sprintf("message type %s: %v", name, err))
	}
	return mt
}

// messageDescriptor is the descriptor of the named message.
func messageDescriptor(name protoreflect.FullName) protoreflect.MessageDescriptor {
	return messageType(name).Descriptor()
}
