// README programs run two at a time where they are independent: the pool's width, its locks, and
// which programs share a server.
import { sharedServers } from '../lib/consumer-check.mjs';
import { runPool } from '../lib/run-pool.mjs';

/** A task that records its start and end in `log` and takes `ms`. */
function task(log: string[], name: string, locks: string[], ms = 10) {
  return {
    locks,
    run: async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
    },
  };
}

describe('runPool', () => {
  it('runs independent tasks two at a time', async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const tasks = ['a', 'b', 'c', 'd', 'e'].map((n) => ({
      locks: [n],
      run: async () => {
        most = Math.max(most, ++running);
        await task(log, n, []).run();
        running--;
      },
    }));
    await runPool(tasks, 2);
    expect(most).toBe(2);
    expect(log.filter((l) => l.startsWith('end'))).toHaveLength(5);
  });

  it('never overlaps tasks that share a lock, and keeps their order', async () => {
    const log: string[] = [];
    await runPool([task(log, 'ovs 1', ['ovs'], 30), task(log, 'pure', ['p']), task(log, 'ovs 2', ['ovs', 'kube']), task(log, 'kube 1', ['kube'])], 2);
    expect(log.indexOf('start ovs 2')).toBeGreaterThan(log.indexOf('end ovs 1'));
    // kube 1 is free to start, but ovs 2 (earlier, sharing kube) waits: kube 1 does not overtake it.
    expect(log.indexOf('start kube 1')).toBeGreaterThan(log.indexOf('end ovs 2'));
  });

  it('rejects when a task rejects', async () => {
    await expect(runPool([{ locks: [], run: () => Promise.reject(new Error('boom')) }], 2)).rejects.toThrow('boom');
  });
});

describe('sharedServers', () => {
  it('names OVS for programs reading OVS_RUNDIR and the API server for those reading KUBECONFIG', () => {
    expect(sharedServers("const rundir = process.env['OVS_RUNDIR'] ?? '/var/run/openvswitch';")).toEqual(['ovs']);
    expect(sharedServers('const kc = new KubeConfig(); kc.loadFromDefault();')).toEqual(['kube']);
    expect(sharedServers('await runYardctl(argv, { env: process.env });')).toEqual(['kube']);
    expect(sharedServers("import { parseCidr } from '@switchyard/ipam/cidr';")).toEqual([]);
  });
});
