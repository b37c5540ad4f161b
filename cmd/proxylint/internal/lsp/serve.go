package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Options configure a server.
type Options struct {
	// Version is proxylint's version, told to the client.
	Version string
	// Chdir makes the server change the process's working directory to
	// the workspace's root when the client names one: the loader, like
	// the command line, reads includes inside the working directory and
	// checks the paths .proxylint.yaml names against its repository.
	Chdir bool
	// Log receives what the server has to say outside the protocol: a
	// handler that failed, a request it could not read (standard error).
	Log io.Writer
	// Delay is how long the server waits after a change for the next one
	// before it lints (default 150ms); opening and saving lint at once.
	Delay time.Duration
	// Poll is how often the server looks whether the files its last lint
	// read from the disk changed (default 1s).
	Poll time.Duration
}

// Serve runs a language server over rwc (standard input and output for
// "proxylint lsp") until the client sends exit or closes the stream, and
// returns the exit code the protocol asks for: 0 after shutdown, 1
// otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Delay <= 0 {
		opts.Delay = 150 * time.Millisecond
	}
	if opts.Poll <= 0 {
		opts.Poll = pollInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	header := jsonrpc2.NewHeaderStream(rwc)
	frames, ok := header.(frameReader)
	if !ok {
		fmt.Fprintln(opts.Log, "proxylint lsp: the JSON-RPC stream does not expose its frames")
		return 1
	}
	conn := jsonrpc2.NewConn(&tolerantStream{Stream: header, frames: frames, log: opts.Log}, jsonrpc2.WithCodec(codec{}))
	s := newServer(ctx, protocol.ClientDispatcher(conn), opts)
	go s.lintLoop(ctx)
	// No cancellation handler: proxylint answers at once, and the
	// protocol package's one derives contexts from the pooled request
	// that outlive it. "$/cancelRequest" is a notification the server
	// may ignore.
	conn.Go(ctx, guard(protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler), s, opts.Log))

	select {
	case <-s.exited:
		// The handler of exit has returned; closing waits for the
		// handlers still running and closes the stream. A read blocked on
		// a terminal or a pipe may not end with the close, so the server
		// does not wait long for it.
		go func() { _ = conn.Close() }()
		select {
		case <-conn.Done():
		case <-time.After(time.Second):
		}
	case <-conn.Done():
		if err := conn.Err(); err != nil {
			fmt.Fprintf(opts.Log, "proxylint lsp: %v\n", err)
		}
	}
	cancel()
	s.stop()
	if s.wasShutDown() {
		return 0
	}
	return 1
}

// codec marshals the payloads of messages with the protocol package's
// union-aware encoding; already encoded values pass as they are.
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case *jsonrpc2.RawMessage:
		if m == nil || *m == nil {
			return []byte("null"), nil
		}
		return *m, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// frameReader is what the header stream offers beyond a Stream: a frame's
// body before it is decoded.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// tolerantStream reads the frames of the header stream and answers one
// that does not hold a JSON-RPC message with an error response, as the
// JSON-RPC specification asks, instead of ending the connection: a client
// that sent one bad message gets an error and the server goes on.
type tolerantStream struct {
	jsonrpc2.Stream
	frames frameReader
	log    io.Writer
}

func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, n, err := s.frames.ReadFrame(ctx)
		if err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, n, nil
		}
		code := jsonrpc2.ParseError
		if errors.Is(err, jsonrpc2.ErrInvalidRequest) {
			code = jsonrpc2.InvalidRequest
		}
		fmt.Fprintf(s.log, "proxylint lsp: a message that cannot be read (%v): %.200q\n", err, body)
		reply := jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(code, "proxylint: the message cannot be read: "+err.Error()))
		if _, err := s.Stream.Write(ctx, reply); err != nil {
			return nil, 0, err
		}
	}
}

// guard keeps one message from ending the connection: a notification's
// error (a parameter of the wrong type) and a handler's panic are logged,
// and a request that panicked gets an internal error. Requests before
// initialize are refused, as the protocol asks.
func guard(next jsonrpc2.Handler, s *server, log io.Writer) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method, call := strings.Clone(req.Method()), req.IsCall()
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(log, "proxylint lsp: %s failed: %v\n%s", method, r, debug.Stack())
				result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "proxylint: %s failed: %v", method, r)
			}
			if err != nil && !call {
				fmt.Fprintf(log, "proxylint lsp: %s: %v\n", method, err)
				result, err = nil, nil
			}
		}()
		if !s.isInitialized() && method != protocol.MethodInitialize && method != protocol.MethodExit {
			if !call {
				return nil, nil
			}
			return nil, jsonrpc2.NewError(jsonrpc2.Code(protocol.ErrorCodesServerNotInitialized), "proxylint: the server is not initialized")
		}
		return next(ctx, req)
	}
}
