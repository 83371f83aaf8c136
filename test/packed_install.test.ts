import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { join as joinSociety, WORLD_TEST_GENESIS } from './helpers/world.js';

/**
 * The agent bridge as someone outside the clone gets it: `npm pack`, the tarball installed
 * into an empty folder elsewhere, its bins run from that folder. Only the runtime build and
 * the declared dependencies are there, so a missing file, a dev-only import or a bin without
 * its shebang fails here, not on an agent's machine.
 */

const run = promisify(execFile);
const AGENT_BIN = 'tessera-agent';
const OPERATOR_BIN = 'tessera-operator';
const REPLICA_BIN = 'tessera-replica';
const PACKAGE_NAME = 'tessera-society';
/** The bins run from a folder with no node_modules of the clone's: node must be found on PATH by the shebang. */
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
/**
 * Under `npm test` the environment carries the test run's own lifecycle and package values
 * (and the clone as local prefix); the nested npm must see only the user's configuration.
 */
const npm_env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^npm_(lifecycle_|package_|command$|config_local_prefix$|config_call$)/i.test(name),
  ),
);

let scratch: string;
let tarball: { filename: string; files: { path: string; mode: number }[] };
let install_dir: string;
/** How npm found the dependencies: from its cache alone, or allowed to ask the registry for what the cache lacked. */
let install_mode: 'offline' | 'prefer-offline';
let society: TestSociety;
let agent_id: string;
let key_file: string;
let bridge: Client;

const bin = (name: string) => join(install_dir, 'node_modules', '.bin', name);
const runBin = (name: string, args: string[]) =>
  run(bin(name), args, { cwd: install_dir, env: { ...process.env, PATH }, timeout: 30_000 });
const text = (result: any) => JSON.parse(result.content[0].text);

async function installInto(folder: string, mode: 'offline' | 'prefer-offline'): Promise<void> {
  const args = ['install', '--prefix', folder, join(scratch, tarball.filename), '--no-audit', '--no-fund', `--${mode}`];
  await run('npm', args, { cwd: folder, env: npm_env, timeout: 90_000 });
}

beforeAll(async () => {
  if (!existsSync('dist/client/cli.js')) throw new Error('no build in dist/: npm run build (npm test runs it first)');
  scratch = mkdtempSync(join(tmpdir(), 'tessera-pack-'));
  // The build is already there (pretest); `prepare` would rebuild dist/ under the tests running beside this one.
  const pack_args = ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch];
  const packed = await run('npm', pack_args, { env: npm_env, timeout: 60_000 });
  tarball = JSON.parse(packed.stdout)[0];
  install_dir = mkdtempSync(join(tmpdir(), 'tessera-installed-'));
  expect(install_dir.startsWith(process.cwd())).toBe(false);
  install_mode = 'offline';
  try {
    await installInto(install_dir, 'offline');
  } catch (error) {
    // `npm ci` caches the tarballs but not the registry's metadata that a fresh install resolves ranges with.
    if (!String((error as { stderr?: string }).stderr).includes('ENOTCACHED')) throw error;
    console.warn('packed_install: the npm cache cannot resolve every dependency offline; installing --prefer-offline');
    rmSync(install_dir, { recursive: true, force: true });
    install_dir = mkdtempSync(join(tmpdir(), 'tessera-installed-'));
    install_mode = 'prefer-offline';
    await installInto(install_dir, 'prefer-offline');
  }
  society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
  const made = JSON.parse((await runBin(AGENT_BIN, ['keygen'])).stdout);
  agent_id = made.agent_id;
  key_file = join(install_dir, made.file);
  bridge = new Client({ name: 'packed-install-test', version: '1.0.0' });
  const args = ['mcp', '--key', key_file, '--url', society.url];
  await bridge.connect(new StdioClientTransport({ command: bin(AGENT_BIN), args, cwd: install_dir, env: { PATH } }));
}, 180_000);

afterAll(async () => {
  await bridge?.close();
  await society?.destroy();
  for (const folder of [scratch, install_dir]) if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the packed package, installed into an empty folder outside the clone', () => {
  it('packs the runtime build, the README and package.json: no tests, benches or sources', () => {
    const paths = tarball.files.map((file) => file.path);
    expect(paths).toContain('README.md');
    expect(paths).toContain('package.json');
    for (const path of paths.filter((path) => path !== 'README.md' && path !== 'package.json')) {
      expect(path, path).toMatch(/^dist\/(api|client|engine|render)\/.+\.js$/);
    }
    const entry_points = ['dist/client/cli.js', 'dist/api/operator_cli.js', 'dist/api/main.js'];
    for (const runtime of [...entry_points, 'dist/engine/store/store_probe_main.js']) {
      expect(paths, runtime).toContain(runtime);
    }
    console.info(`packed_install: ${tarball.filename}, ${paths.length} files, installed ${install_mode}`);
  });

  it('installs the three bins the package declares, each a node script, with the runtime dependencies only', () => {
    const installed = JSON.parse(readFileSync(join(install_dir, 'node_modules', PACKAGE_NAME, 'package.json'), 'utf8'));
    expect(installed.bin).toEqual({
      [AGENT_BIN]: 'dist/client/cli.js',
      [OPERATOR_BIN]: 'dist/api/operator_cli.js',
      [REPLICA_BIN]: 'dist/api/replica_main.js',
    });
    expect(JSON.parse(readFileSync('package.json', 'utf8')).bin).toEqual(installed.bin);
    for (const name of [AGENT_BIN, OPERATOR_BIN, REPLICA_BIN]) {
      expect(readFileSync(bin(name), 'utf8').split('\n')[0], name).toBe('#!/usr/bin/env node');
      expect(statSync(bin(name)).mode & 0o111, name).not.toBe(0);
    }
    const top_level = readdirSync(join(install_dir, 'node_modules'));
    for (const dev_only of ['vitest', 'typescript', 'fast-check', 'playwright-core']) {
      expect(top_level, dev_only).not.toContain(dev_only);
    }
    const made_here = ['agent.key.json', 'node_modules', 'package-lock.json', 'package.json'];
    expect(readdirSync(install_dir).sort()).toEqual(made_here);
  });

  it('makes the key with the installed bin: a 0600 file in the folder it runs in', () => {
    expect(agent_id).toMatch(/^ag_[0-9a-f]{16}$/);
    expect(JSON.parse(readFileSync(key_file, 'utf8')).agent_id).toBe(agent_id);
    expect(statSync(key_file).mode & 0o777).toBe(0o600);
  });

  it("serves the descriptor's tools over stdio to the official MCP SDK client: registers, reads, acts", async () => {
    const descriptor = (await request(society.url, '/.well-known/mcp.json')).body;
    const listed = (await bridge.listTools()).tools.map((tool) => tool.name);
    expect(listed.sort()).toEqual(descriptor.tools.map((tool: { name: string }) => tool.name).sort());
    for (const name of ['register', 'society_status', 'world_look', 'aether_send']) {
      expect(listed, name).toContain(name);
    }

    const registered = await bridge.callTool({ name: 'register', arguments: { handle: 'packed-agent' } });
    expect(text(registered).agent_id).toBe(agent_id);
    const status = text(await bridge.callTool({ name: 'society_status', arguments: {} }));
    expect(status).toMatchObject({ society: 'Tessera', agents: society.engine.state.agents.size });
    expect(status.agents).toBeGreaterThan(0);

    const seen = text(await bridge.callTool({ name: 'world_look', arguments: {} }));
    expect(seen.ap).toBeGreaterThan(0);
    // A signed act behind a Proof of Machine challenge: the installed bridge fetches it, solves it and signs.
    const sent = await bridge.callTool({ name: 'aether_send', arguments: { body: 'through an installed bridge' } });
    expect(sent.isError, JSON.stringify(sent.content)).toBeFalsy();
    expect(text(sent).route).toBe('global');
    const { entries } = (await request(society.url, '/api/v1/ledger?limit=1000')).body;
    const mine = entries.filter((entry: any) => entry.actor === agent_id).map((entry: any) => entry.event_type);
    expect(mine).toEqual(expect.arrayContaining(['agent_registered', 'aether_sent']));
  });

  it('runs the command lines from the installed package: help, ledger verification, a store replay', async () => {
    expect((await runBin(AGENT_BIN, ['--help'])).stdout).toContain(`${AGENT_BIN} mcp [--key FILE] [--url BASE_URL]`);
    expect((await runBin(OPERATOR_BIN, ['--help'])).stdout).toContain(`${OPERATOR_BIN} replay PATH`);
    expect((await runBin(REPLICA_BIN, ['--help'])).stdout).toContain(`${REPLICA_BIN}: a read replica`);
    // Without the NATS servers to follow, a replica refuses to start and says what is missing.
    const refused = await runBin(REPLICA_BIN, []).catch((error: { stderr: string }) => error);
    expect(refused.stderr).toContain('ROLE=replica needs LOG_URL');
    expect(
      JSON.parse(
        (await runBin(AGENT_BIN, ['verify', society.url, '--quiet', '--state', join(install_dir, 'log-state.json')]))
          .stdout,
      ).ok,
    ).toBe(true);
    // The replay spawns its store probe from the installed build: the child scripts are in the package too.
    const replayed = JSON.parse((await runBin(OPERATOR_BIN, ['replay', society.data_dir])).stdout);
    expect(replayed).toMatchObject({ ok: true, ledger_head: expect.any(String) });
  });
});

describe('the documented way to run the bridge', () => {
  it('names the installed bin in /.well-known/mcp.json, /for-agents and the README, with the node form', async () => {
    const { stdio } = (await request(society.url, '/.well-known/mcp.json')).body;
    expect(stdio.command).toBe(AGENT_BIN);
    expect(stdio.args.slice(0, 2)).toEqual(['mcp', '--key']);
    expect(stdio.args.slice(-2)).toEqual(['--url', 'http://society.test']);
    expect(stdio.install).toContain(`${PACKAGE_NAME}-`);
    expect(stdio.without_installing.args[0]).toMatch(/\/dist\/client\/cli\.js$/);
    const html = await fetch(`${society.url}/for-agents`).then((response) => response.text());
    const page = html.replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&quot;/g, '"');
    expect(page).toContain(`"command": "${AGENT_BIN}"`);
    expect(page).toContain('dist/client/cli.js');
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain(`"command": "${AGENT_BIN}"`);
    expect(readme).toContain(`npm install -g ./${PACKAGE_NAME}-`);
  });

  it('leaves no command that would fetch an unrelated registry package or name the old bin', () => {
    const stale = /npx tessera|\btessera (mcp|verify|keygen|register|act|grant|rotate)\b/;
    const within = (folder: string) =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' }).map((name) => join(folder, name));
    const files = ['README.md', ...['docs', 'render', 'api', 'client'].flatMap(within)];
    const offending = files.filter((file) => statSync(file).isFile() && stale.test(readFileSync(file, 'utf8')));
    expect(offending).toEqual([]);
  });
});

describe("the README's agent that follows the society", () => {
  it('runs as written from the installed copy, and votes aye on a motion the moment it opens', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### Follow the society instead of polling'));
    const code = /```js\n([\s\S]*?)```/.exec(section)![1]!;
    writeFileSync(join(install_dir, 'follow.mjs'), code);
    const agent = spawn(process.execPath, ['follow.mjs'], {
      cwd: install_dir,
      env: { ...process.env, PATH, TESSERA_URL: society.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    agent.stdout!.on('data', (chunk) => (printed += chunk));
    agent.stderr!.on('data', (chunk) => (printed += chunk));
    try {
      // The stream starts with what commits after it connects: give the agent a moment to start.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const author = await joinSociety(society, 'follow-author');
      const changes = [{ op: 'set_param', name: 'transfer_ap', value: 0 }];
      const { motion_id } = (
        await author.client.act<{ motion_id: string }>('motion_propose', { title: 'Heard at once', body: '', changes })
      ).result;
      await author.client.act('motion_open', { motion_id });
      const until = Date.now() + 20_000;
      while (!printed.includes(`aye on ${motion_id}`) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(printed).toContain(`aye on ${motion_id}`);
      const votes = (await request(society.url, `/api/v1/motions/${motion_id}/votes`)).body;
      expect(JSON.stringify(votes)).toContain(agent_id);
    } finally {
      agent.kill('SIGTERM');
    }
  }, 60_000);
});
