// A HostLocalStore per test on a fresh temp directory, closed and removed after it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostLocalStore, type DirLock, type HostLocalStoreOptions } from '@switchyard/ipam';

/** One IPv4 range set of six usable addresses (10.1.0.1 is the gateway). */
export const v4 = [[{ subnet: '10.1.0.0/29' }]];
/** An attachment (container id and interface). */
export const att = (id: string, ifname = 'eth0') => ({ containerId: id, ifname });

/**
 * Registers beforeEach/afterEach that make and remove the data directory (`root`); `open` makes a
 * store of `network` there (with `lock()` unless the options name one; `dataDir` in the options
 * puts it elsewhere), `dir` is that network's directory. Every store opened is closed after the test.
 */
export function hostLocalFixture(lock?: () => DirLock, network = 'net1') {
  let dataDir = '';
  const stores: HostLocalStore[] = [];
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ipam-hl-'));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const open = async (ranges: HostLocalStoreOptions['ranges'], extra: Partial<HostLocalStoreOptions> = {}) => {
    const s = await HostLocalStore.open({ dataDir, network, ranges, ...(lock ? { lock: lock() } : {}), ...extra });
    stores.push(s);
    return s;
  };
  return { open, dir: () => path.join(dataDir, network), root: () => dataDir };
}
