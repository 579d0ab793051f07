#!/usr/bin/env node
// The npm registry reachable here serves only this machine's platform builds of packages like
// @swc/core, rollup and esbuild; npm then leaves the other platforms' optional packages out of
// package-lock.json, and `npm ci` refuses the lock as out of sync. This adds the missing optional
// entries (os/cpu read from the package name), which npm ci skips on a non-matching platform.
// Run after `npm install` changes the lock: node scripts/lock-platform-entries.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const base = name.split('/').pop();
  const parts = base.split('-');
  const os = parts.find((p) => OS.includes(p)) ?? (base.includes('win32') ? 'win32' : undefined);
  let cpu = parts.find((p) => CPU.includes(p));
  if (!cpu && /arm/.test(base)) cpu = 'arm';
  if (!cpu && /loong/.test(base)) cpu = 'loong64';
  if (!cpu && /riscv/.test(base)) cpu = 'riscv64';
  return { os, cpu };
}

let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [dep, range] of Object.entries(meta.optionalDependencies ?? {})) {
    // Resolve the way node does: next to the dependent, then up the tree.
    const parts = path ? path.split('node_modules/').filter(Boolean) : [];
    let found = false;
    for (let i = parts.length; i >= 0; i--) {
      const prefix = parts.slice(0, i).map((p) => `node_modules/${p.replace(/\/$/, '')}/`).join('');
      if (pkgs[`${prefix}node_modules/${dep}`]) {
        found = true;
        break;
      }
    }
    if (found) continue;
    const { os, cpu } = platformOf(dep);
    if (!os && !cpu) continue; // not a platform build: leave it to npm
    const entry = { version: range.replace(/^[\^~=]/, ''), optional: true };
    if (meta.dev) entry.dev = true;
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    const at = path ? `${path}/node_modules/${dep}` : `node_modules/${dep}`;
    pkgs[`node_modules/${dep}`] ? (pkgs[at] = entry) : (pkgs[`node_modules/${dep}`] = entry);
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platform-entries: added ${added} optional platform entries`);
