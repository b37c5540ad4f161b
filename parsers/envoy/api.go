package envoy

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// messageType is the type of the named message of Envoy's API.
func messageType(name protoreflect.FullName) protoreflect.MessageType {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
	if err != nil {
		panic(fmt.Sprintf("message type %s: %v", name, err))
	}
	return mt
}

// messageDescriptor is the descriptor of the named message.
func messageDescriptor(name protoreflect.FullName) protoreflect.MessageDescriptor {
	return messageType(name).Descriptor()
}
