#!/usr/bin/env node
/**
 * npm start: serves the society from a build of the sources as they are now, compiling
 * only when no build of exactly these sources exists.
 *
 * Each build lives in its own folder named by a hash of the sources it was made from
 * (node_modules/.cache/tessera-start/<hash>), is made in a scratch folder and renamed
 * into place whole, and is never written again. So a start never rewrites a build a
 * running server loads files from (its chunk workers, drill and store-check children
 * load theirs lazily), and never touches dist/, which `npm test` and the bin commands
 * use. A build no running process uses is removed by the next start.
 *
 * On a fresh clone `npm install` has just built dist/ (the prepare script): when every
 * compiled file there is newer than its source, that build is copied instead of compiled
 * again.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** What the server runs: the test and bench sources are left out of the hash and the build. */
const SERVED_FOLDERS = ['api', 'engine', 'render', 'client', 'types'];
const builds = join(root, 'node_modules', '.cache', 'tessera-start');
/** Written last into a finished build: a folder without it is a build cut short. */
const COMPLETE = 'BUILD_COMPLETE';
const USERS = 'in-use';

function sourceFiles() {
  const files = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const folder of SERVED_FOLDERS) if (existsSync(join(root, folder))) walk(join(root, folder));
  return files.sort();
}

function sourcesHash(files) {
  const hash = createHash('sha256');
  for (const file of [join(root, 'tsconfig.json'), ...files]) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 20);
}

/**
 * dist/ holds a build of these sources when each compiled file, or the last build as a whole,
 * is at least as new as its source and tsconfig.json. `npm run build` is incremental: it leaves
 * a file it had nothing to change in as it was, and touches dist/.tsbuildinfo as it ends.
 */
function distIsCurrent(files) {
  const tsconfig_ms = statSync(join(root, 'tsconfig.json')).mtimeMs;
  const build_info = join(root, 'dist', '.tsbuildinfo');
  const built_ms = existsSync(build_info) ? statSync(build_info).mtimeMs : 0;
  return files.every((file) => {
    if (file.endsWith('.d.ts')) return true;
    const compiled = join(root, 'dist', relative(root, file)).replace(/\.ts$/, '.js');
    if (!existsSync(compiled)) return false;
    const current_ms = Math.max(statSync(compiled).mtimeMs, built_ms);
    return current_ms >= statSync(file).mtimeMs && current_ms >= tsconfig_ms;
  });
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The pids a name or folder records as its users (in-use/<pid>, or .tmp-<pid>-...). */
function liveUsers(build) {
  const folder = join(builds, build, USERS);
  const pids = build.startsWith('.tmp-')
    ? [Number(build.split('-')[1])]
    : existsSync(folder)
      ? readdirSync(folder).map(Number)
      : [];
  return pids.filter((pid) => Number.isSafeInteger(pid) && pid > 0 && isRunning(pid));
}

function pruneUnused(keep) {
  for (const build of readdirSync(builds)) {
    if (build === keep || build === '.gitignore' || liveUsers(build).length > 0) continue;
    rmSync(join(builds, build), { recursive: true, force: true });
  }
}

/** Compiles the served sources into `folder` with the project's own compiler and settings. */
function compileInto(folder) {
  const config = join(folder, 'tsconfig.start.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(root, 'tsconfig.json'),
      compilerOptions: { rootDir: root, outDir: folder, sourceMap: true },
      include: SERVED_FOLDERS.map((name) => join(root, name)),
    }),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', config], { stdio: 'inherit' });
  unlinkSync(config);
  return compiled.status === 0;
}

function makeBuild(files, hash) {
  const final = join(builds, hash);
  if (existsSync(join(final, COMPLETE))) return final;
  const scratch = join(builds, `.tmp-${process.pid}-${Date.now()}`);
  mkdirSync(scratch, { recursive: true });
  if (distIsCurrent(files)) {
    for (const folder of SERVED_FOLDERS) {
      const from = join(root, 'dist', folder);
      if (existsSync(from)) cpSync(from, join(scratch, folder), { recursive: true });
    }
  } else {
    console.log(`tessera: the sources changed since the last build; compiling them into ${relative(root, final)} ...`);
    if (!compileInto(scratch)) {
      rmSync(scratch, { recursive: true, force: true });
      console.error('tessera: the build failed (the compiler said why above); nothing was started.');
      process.exit(1);
    }
  }
  writeFileSync(join(scratch, COMPLETE), `${hash}\n`);
  // A folder either is a whole build or is not there; another start may have finished the same one first.
  try {
    renameSync(scratch, final);
  } catch (error) {
    if (!existsSync(join(final, COMPLETE))) throw error;
    rmSync(scratch, { recursive: true, force: true });
  }
  return final;
}

mkdirSync(builds, { recursive: true });
writeFileSync(join(builds, '.gitignore'), '*\n');
const files = sourceFiles();
const hash = sourcesHash(files);
const build = makeBuild(files, hash);
// Claimed before anything is pruned: a start of other sources sees this build in use and leaves it.
const user = join(build, USERS, String(process.pid));
mkdirSync(dirname(user), { recursive: true });
writeFileSync(user, '');
process.on('exit', () => rmSync(user, { force: true }));
pruneUnused(hash);
await import(pathToFileURL(join(build, 'api', 'main.js')).href);
