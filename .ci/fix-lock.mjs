// The package registry this project installs from carries msgpackr-extract's native
// builds for linux only, so `npm install` leaves the other platforms' entries out of
// package-lock.json and `npm ci` then refuses the lock as out of sync. This adds them
// back by name and version (they are optional and never fetched on linux).
// Run it after any `npm install` that rewrites the lock: node .ci/fix-lock.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const parent = lock.packages['node_modules/msgpackr-extract'];
let added = 0;
for (const [name, version] of Object.entries(parent?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [, os, cpu] = /-(darwin|linux|win32)-(\w+)$/.exec(name) ?? [];
  lock.packages[key] = { version, cpu: [cpu], license: 'MIT', optional: true, os: [os] };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`fix-lock: added ${added} optional platform entries`);
