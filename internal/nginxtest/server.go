package nginxtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// readyTimeout bounds how long Start waits for nginx to listen.
	readyTimeout = 10 * time.Second
	// stopTimeout bounds how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 5 * time.Second
	// logTimeout bounds WaitLog.
	logTimeout = 5 * time.Second
)

// FreePort returns a TCP port on 127.0.0.1 for nginx to listen on, and
// keeps it reserved until the test ends.
//
// The reservation is a socket bound to the port with SO_REUSEADDR that
// never listens. While it exists the kernel hands the port neither to
// another bind to port 0 nor to an outgoing connection, so tests running
// in parallel (here or in other packages) cannot race for it; nginx, which
// sets SO_REUSEADDR on its listening sockets, can still bind and listen.
func FreePort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("nginxtest: socket: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		t.Fatalf("nginxtest: SO_REUSEADDR: %v", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("nginxtest: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("nginxtest: getsockname: %v", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("nginxtest: unexpected socket address %T", sa)
	}
	return in4.Port
}

// Server is an nginx process started by [Start].
type Server struct {
	// Prefix is the scratch directory given to nginx with -p. The
	// configuration is Prefix/conf/nginx.conf; logs go to Prefix/logs.
	Prefix string
	// Addrs are the addresses Start waited for, in the order given.
	Addrs []string

	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has exited
	waitErr  error         // valid after done is closed
	output   *lockedBuffer
	stopOnce sync.Once
	stopping chan struct{} // closed when Stop begins
}

// Start runs nginx in the foreground with conf as its main configuration,
// in a scratch prefix, and waits until every address in addrs accepts TCP
// connections. It registers a cleanup that stops nginx.
//
// nginx runs with -g "daemon off; master_process off; pid logs/nginx.pid;",
// so conf must not set daemon, master_process or pid. A single process
// serves every request: connection pools are shared by all requests and
// nothing runs under another user. Relative paths in conf resolve against
// the prefix, which already contains empty logs/ and tmp/ directories;
// use [HTTPConf] or [HTTPTempPaths] to keep temporary files there.
//
// Start fails the test if nginx exits early or does not listen within 10s.
func Start(t testing.TB, conf string, addrs ...string) *Server {
	t.Helper()
	bin := Require(t)
	if len(addrs) == 0 {
		t.Fatalf("nginxtest: Start needs at least one address to wait for")
	}
	prefix := newPrefix(t)
	confPath := filepath.Join(prefix, "conf", "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatalf("nginxtest: %v", err)
	}
	s := &Server{
		Prefix:   prefix,
		Addrs:    append([]string(nil), addrs...),
		done:     make(chan struct{}),
		output:   &lockedBuffer{},
		stopping: make(chan struct{}),
	}
	s.cmd = exec.Command(bin,
		"-p", prefix+"/",
		"-e", filepath.Join(prefix, "logs", "error.log"),
		"-c", confPath,
		"-g", "daemon off; master_process off; pid logs/nginx.pid;")
	s.cmd.Dir = prefix
	s.cmd.Stdout = s.output
	s.cmd.Stderr = s.output
	// Own process group, so that Stop can kill anything nginx spawned.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.WaitDelay = 2 * time.Second
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("nginxtest: starting nginx: %v", err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
			select {
			case <-s.stopping:
			default:
				t.Errorf("nginxtest: nginx exited before the test ended: %v\n%s", s.waitErr, s.diagnostics())
			}
		default:
		}
		s.Stop()
	})

	deadline := time.Now().Add(readyTimeout)
	for _, addr := range addrs {
		for {
			select {
			case <-s.done:
				s.Stop()
				t.Fatalf("nginxtest: nginx exited during start-up: %v\n%s", s.waitErr, s.diagnostics())
			default:
			}
			// nginx retries a failed bind for 2.5s before it exits; do
			// not mistake whoever holds the port for it meanwhile.
			if strings.Contains(s.ErrorLog(), "bind() to ") {
				s.Stop()
				t.Fatalf("nginxtest: nginx could not listen:\n%s", s.diagnostics())
			}
			c, err := net.DialTimeout("tcp", addr, 250*time.Millisecond)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				s.Stop()
				t.Fatalf("nginxtest: nginx not listening on %s after %v: %v\n%s", addr, readyTimeout, err, s.diagnostics())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return s
}

// URL returns "http://" followed by the first address.
func (s *Server) URL() string { return "http://" + s.Addrs[0] }

// Stop terminates nginx (SIGTERM, then SIGKILL to its process group after
// 5s) and waits for it to exit. It is safe to call more than once; Start
// registers it as a cleanup.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		close(s.stopping)
		select {
		case <-s.done:
			return
		default:
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
			return
		case <-time.After(stopTimeout):
		}
		// The group still has its leader, so the id cannot have been reused.
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	})
}

// Output returns what nginx printed on stdout and stderr.
func (s *Server) Output() string { return s.output.String() }

// Log returns the contents of Prefix/logs/name, or "" if there is no such
// file yet.
func (s *Server) Log(name string) string {
	b, err := os.ReadFile(filepath.Join(s.Prefix, "logs", name))
	if err != nil {
		return ""
	}
	return string(b)
}

// AccessLog returns the contents of logs/access.log.
func (s *Server) AccessLog() string { return s.Log("access.log") }

// ErrorLog returns the contents of logs/error.log.
func (s *Server) ErrorLog() string { return s.Log("error.log") }

// WaitLog waits up to 5s for a line of logs/name for which match returns
// true and returns it. nginx writes an access log line when a request
// ends, which may be after the client has seen the response. The test
// fails if no line matches in time.
func (s *Server) WaitLog(t testing.TB, name string, match func(line string) bool) string {
	t.Helper()
	deadline := time.Now().Add(logTimeout)
	for {
		for _, line := range strings.Split(s.Log(name), "\n") {
			if line != "" && match(line) {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginxtest: no matching line in logs/%s after %v; it holds:\n%s", name, logTimeout, s.Log(name))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *Server) diagnostics() string {
	out := s.Output()
	el := s.ErrorLog()
	return fmt.Sprintf("nginx output:\n%s\nlogs/error.log:\n%s", out, el)
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutine of os/exec
// and a reading test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
