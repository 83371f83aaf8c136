// The package registry this project installs from carries the native builds of
// msgpackr-extract and of Biome (the formatter) for some platforms only, so `npm install`
// leaves the other platforms' entries out of package-lock.json and `npm ci` then refuses
// the lock as out of sync. This adds them back by name and version (they are optional
// and never fetched where they do not apply).
// Run it after any `npm install` that rewrites the lock: node .ci/fix-lock.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
/** The packages whose optional dependencies are one native build per platform. */
const NATIVE_PARENTS = ['node_modules/msgpackr-extract', 'node_modules/@biomejs/biome'];
let added = 0;
for (const parent_key of NATIVE_PARENTS) {
  const parent = lock.packages[parent_key];
  for (const [name, version] of Object.entries(parent?.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const [, os, cpu, musl] = /-(android|darwin|linux|win32)-([a-z0-9]+)(-musl)?$/.exec(name) ?? [];
    lock.packages[key] = {
      version,
      cpu: [cpu],
      ...(parent.dev ? { dev: true } : {}),
      ...(os === 'linux' ? { libc: [musl ? 'musl' : 'glibc'] } : {}),
      license: parent.license ?? 'MIT',
      optional: true,
      os: [os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`fix-lock: added ${added} optional platform entries`);
