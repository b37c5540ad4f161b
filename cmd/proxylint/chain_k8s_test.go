package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proxylint chain over a directory of manifests follows each Ingress path
// through the Service it names to the Deployment the Service selects, then
// to the declared backend; a Service that selects nothing, and one not in
// the input, end the path with a note.
func TestChainKubernetesIngress(t *testing.T) {
	want, err := os.ReadFile("testdata/chain-k8s-ingress.json")
	require.NoError(t, err)
	dir, err := filepath.Abs("../../fixtures/examples/k8s")
	require.NoError(t, err)
	code, out, errOut := runCLI(t, dir, "chain", "--no-color", "--backend", "uvicorn", "ingress")
	require.Equal(t, exitClean, code, errOut)
	assert.Equal(t, `Path 1 of 3: ingress/ingress.yaml:15 Ingress shop shop.example.com/api
  HOP                                                                   WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  ingress-nginx ingress/ingress.yaml Ingress shop shop.example.com/api  [60s]  3      -                      [60s]               [1h]
  Service shop/api:80                                                   -      -      -                      -                   -
  Deployment shop/api:8000                                              -      -      -                      -                   -
  backend uvicorn                                                       -      -      5s                     -                   -
  ! ingress/ingress.yaml:15: upstream "shop-api-80" keeps idle connections for 60s (upstream-keepalive-timeout 60s (default)), but uvicorn (--backend uvicorn) closes them after 5s [keepalive-idle-race]

Path 2 of 3: ingress/ingress.yaml:22 Ingress shop shop.example.com/cart
  HOP                                                                    WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  ingress-nginx ingress/ingress.yaml Ingress shop shop.example.com/cart  [60s]  3      -                      [60s]               [1h]
  Service shop/cart:80                                                   -      -      -                      -                   -
  note: Service shop/cart:80 selects no workload in the input (selector app.kubernetes.io/name=cart): the path ends here
  ! ingress/ingress.yaml:22: upstream "shop-cart-http" keeps idle connections for 60s (upstream-keepalive-timeout 60s (default)), but uvicorn (--backend uvicorn) closes them after 5s [keepalive-idle-race]

Path 3 of 3: ingress/ingress.yaml:29 Ingress shop shop.example.com/orders
  HOP                                                                      WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  ingress-nginx ingress/ingress.yaml Ingress shop shop.example.com/orders  [60s]  3      -                      [60s]               [1h]
  Service shop/orders:8080                                                 -      -      -                      -                   -
  note: Service shop/orders:8080 is not in the input: the path ends here
  ! ingress/ingress.yaml:29: upstream "shop-orders-8080" keeps idle connections for 60s (upstream-keepalive-timeout 60s (default)), but uvicorn (--backend uvicorn) closes them after 5s [keepalive-idle-race]
  ! ingress/ingress.yaml:29: Ingress shop shop.example.com/orders looks like it writes (its path matches the write-path patterns), and proxy-next-upstream error timeout (default) retries... [retry-timeout-write]
`, out)

	// The same paths as JSON (testdata/chain-k8s-ingress.json): the
	// Service and the Deployment with the file and line defining them,
	// the notes on the hops that end a path.
	code, out, errOut = runCLI(t, dir, "chain", "--format", "json", "--backend", "uvicorn", "ingress")
	require.Equal(t, exitClean, code, errOut)
	assert.Equal(t, string(want), out)
}

// An Ingress path to a Service that a VirtualService routes in the mesh
// continues in that VirtualService's route, then the Service and the
// StatefulSet behind it; the Ingress read timeout equal to the mesh
// route's timeout is reported along the path.
func TestChainKubernetesMesh(t *testing.T) {
	dir, err := filepath.Abs("../../fixtures/examples/k8s")
	require.NoError(t, err)
	code, out, errOut := runCLI(t, dir, "chain", "--no-color", "--backend", "uvicorn", "mesh")
	require.Equal(t, exitClean, code, errOut)
	assert.Equal(t, `Path 1 of 1: mesh/ingress.yaml:16 Ingress bookinfo bookinfo.example.com/reviews
  HOP                                                                            WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  ingress-nginx mesh/ingress.yaml Ingress bookinfo bookinfo.example.com/reviews  10s !  3      -                      [60s]               [1h]
  istio mesh/reviews.yaml VirtualService reviews http[0]                         10s    1      -                      30s !               [none]
  Service bookinfo/reviews:9080                                                  -      -      -                      -                   -
  StatefulSet bookinfo/reviews-v1:9080                                           -      -      -                      -                   -
  backend uvicorn                                                                -      -      5s                     -                   -
  ! mesh/ingress.yaml:9: nginx.ingress.kubernetes.io/proxy-read-timeout 10s equals the timeout of the layer it proxies to (VirtualService reviews http[0] on reviews.bookinfo.svc.clus... [timeout-equal-adjacent]
  ! mesh/reviews.yaml:27: service "reviews.bookinfo.svc.cluster.local" keeps idle connections for 30s (connectionPool.http.idleTimeout 30s), but uvicorn (--backend uvicorn) closes the... [keepalive-idle-race]
`, out)

	// The VirtualService alone: its route is the entry.
	code, out, errOut = runCLI(t, dir, "chain", "--no-color", "mesh/reviews.yaml", "mesh/workload.yaml")
	require.Equal(t, exitClean, code, errOut)
	assert.Equal(t, `Path 1 of 1: mesh/reviews.yaml:10 VirtualService reviews http[0]
  HOP                                                     WAITS  TRIES  KEEPS IDLE FROM FRONT  POOLS IDLE TO NEXT  POOL LIFETIME
  istio mesh/reviews.yaml VirtualService reviews http[0]  10s    1      -                      30s                 [none]
  Service bookinfo/reviews:9080                           -      -      -                      -                   -
  StatefulSet bookinfo/reviews-v1:9080                    -      -      -                      -                   -
`, out)
}
