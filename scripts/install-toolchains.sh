#!/usr/bin/env bash
# Install, from Debian's packages, the toolchains of the languages Assay runs (needs root).
# Swift comes from swift.org (https://www.swift.org/install/linux/), Rust from rustup: both are
# found on PATH or in /opt/swift. `assay toolchains` shows what runs here afterwards.
set -euo pipefail
PACKAGES=(
  bubblewrap
  g++ gdc golang-go openjdk-17-jdk-headless scala mono-mcs nodejs node-typescript
  php-cli ruby lua5.4 lua-unit perl libtest-deep-perl r-base-core racket bash bc
  elixir clojure ghc ocaml
  libboost-dev libssl-dev golang-github-stretchr-testify-dev librust-rand-dev librust-regex-dev librust-md5-dev  # humaneval-x: what its programs include, import and use
  cmake  # repository tasks in C (assay swe mine --profile cjson: cmake, make, ctest)
  catch2 junit5 libassertj-core-java  # polyglot: Catch2's header, JUnit 5's console launcher, AssertJ
  podman runc debootstrap  # repository tasks in containers (assay swe image build; --runtime podman|docker)
)
# shellcheck disable=SC2206
PACKAGES+=(${EXTRA_PACKAGES:-})  # e.g. EXTRA_PACKAGES="chromium chromium-driver" (what CI adds for the browser test)
if [ "$(id -u)" != 0 ]; then
  echo "run as root (sudo $0): it installs Debian packages: ${PACKAGES[*]}" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# McEval's languages that have no Assay plugin (assay.languages.mceval_shapes' table): without recommends,
# which would pull in a few hundred MB more (fp-compiler's alone are ~300 MB).
MCEVAL_PACKAGES=(sbcl coffeescript fp-compiler fp-units-rtl emacs-nox groovy gfortran tcl vim-nox erlang-nox)
missing=()
for p in "${MCEVAL_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "toolchains installed: ${PACKAGES[*]} ${MCEVAL_PACKAGES[*]}"
