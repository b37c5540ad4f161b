#!/bin/sh
# Materialises the public Kubernetes manifests listed in bench/manifests.txt
# (repository, commit, path) into a directory outside the repository, for
# the test that lints them (parsers/kube/manifests_test.go):
#
#   bench/manifests.sh [DIR]      # DIR: $PROXYLINT_MANIFESTS, else ../shared-manifests
#   PROXYLINT_MANIFESTS=DIR go test ./parsers/kube -run TestPublicManifests
#
# Each file is written to DIR/OWNER/NAME/PATH, read from a local clone when
# $PROXYLINT_GIT_MIRRORS/OWNER+NAME/repo is one (git show COMMIT:PATH), else
# downloaded from raw.githubusercontent.com at the pinned commit.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-${PROXYLINT_MANIFESTS:-$root/../shared-manifests}}
list=$root/bench/manifests.txt
mkdir -p "$dir"
n=0
grep -v "^#" "$list" | while read -r repo commit path _; do
	[ -n "$repo" ] || continue
	out=$dir/$repo/$path
	mkdir -p "$(dirname "$out")"
	mirror=${PROXYLINT_GIT_MIRRORS:-}/$(echo "$repo" | tr / +)/repo
	if [ -n "${PROXYLINT_GIT_MIRRORS:-}" ] && git -C "$mirror" cat-file -e "$commit:$path" 2>/dev/null; then
		git -C "$mirror" show "$commit:$path" >"$out.tmp"
	else
		curl -fsSL "https://raw.githubusercontent.com/$repo/$commit/$path" -o "$out.tmp"
	fi
	mv "$out.tmp" "$out"
	n=$((n + 1))
	echo "$n $repo $path"
done
