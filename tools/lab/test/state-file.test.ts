// state.json read back: the whole file gives the state, a file cut at any length a LabError
// CORRUPT_STATE naming it (never a JSON syntax error from deep inside a command).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readState } from '../src/client';
import { stateFile } from '../src/lab';
import { LabError } from '../src/plan';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lab-state-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('no state.json: no lab', () => {
  expect(readState(dir)).toBeUndefined();
});

test('the whole file reads back; every shorter cut is CORRUPT_STATE naming the file', () => {
  const state = { pid: 4242, pidStart: 1234567, mode: 'encap', kubeconfig: '/tmp/k', nodes: [{ name: 'node-1', podCIDR: '10.10.1.0/24', agentPid: 77 }] };
  const whole = `${JSON.stringify(state, null, 2)}\n`;
  writeFileSync(stateFile(dir), whole);
  expect(readState(dir)).toEqual(state);
  let refused = 0;
  for (let cut = 0; cut < whole.length - 1; cut++) {
    writeFileSync(stateFile(dir), whole.slice(0, cut));
    try {
      readState(dir);
    } catch (e) {
      expect(e).toBeInstanceOf(LabError);
      expect((e as LabError).code).toBe('CORRUPT_STATE');
      expect((e as LabError).message).toContain(stateFile(dir));
      refused++;
    }
  }
  expect(refused).toBe(whole.length - 1);
});
