/** The agent's part lifecycle: start then sync in order, stop in reverse, and what a failure stops. */
import { healthOf, startControllers, stopControllers, type AgentController } from '../src/lifecycle';
import { silentLogger } from '@switchyard/runtime';

/** A part that records its calls in `log`, and fails the phase named in `failIn`. */
function part(name: string, log: string[], failIn?: 'start' | 'sync' | 'stop' | 'health', withSync = true): AgentController {
  const step = async (phase: 'start' | 'sync' | 'stop'): Promise<void> => {
    log.push(`${phase} ${name}`);
    if (failIn === phase) throw new Error(`${name} ${phase} failed`);
  };
  return {
    name,
    start: () => step('start'),
    ...(withSync ? { sync: () => step('sync') } : {}),
    stop: () => step('stop'),
    health: () => {
      if (failIn === 'health') throw new Error('no answer');
      return { ok: name !== 'down', detail: `${name} detail` };
    },
  };
}

describe('agent part lifecycle', () => {
  it('starts every part in order before syncing any, in the same order', async () => {
    const log: string[] = [];
    await startControllers([part('node', log), part('pods', log, undefined, false), part('policies', log)], silentLogger);
    expect(log).toEqual(['start node', 'start pods', 'start policies', 'sync node', 'sync policies']);
  });

  it('stops parts in reverse start order', async () => {
    const log: string[] = [];
    await stopControllers([part('node', log), part('pods', log), part('policies', log)], silentLogger);
    expect(log).toEqual(['stop policies', 'stop pods', 'stop node']);
  });

  it('on a failed start stops the parts reached, the failing one included, in reverse, and rethrows', async () => {
    const log: string[] = [];
    const parts = [part('node', log), part('pods', log, 'start'), part('policies', log)];
    await expect(startControllers(parts, silentLogger)).rejects.toThrow('pods start failed');
    expect(log).toEqual(['start node', 'start pods', 'stop pods', 'stop node']);
  });

  it('on a failed sync stops every part in reverse and rethrows the sync failure', async () => {
    const log: string[] = [];
    const parts = [part('node', log), part('pods', log, 'sync'), part('policies', log, 'stop')];
    await expect(startControllers(parts, silentLogger)).rejects.toThrow('pods sync failed');
    expect(log.slice(3)).toEqual(['sync node', 'sync pods', 'stop policies', 'stop pods', 'stop node']);
  });

  it('stops the other parts when one fails to stop, then reports that failure', async () => {
    const log: string[] = [];
    await expect(stopControllers([part('node', log), part('pods', log, 'stop'), part('policies', log)], silentLogger)).rejects.toThrow('pods stop failed');
    expect(log).toEqual(['stop policies', 'stop pods', 'stop node']);
  });

  it('is healthy only when every part is, and counts a health check that throws as not ok', () => {
    const log: string[] = [];
    expect(healthOf([part('node', log), part('pods', log)])).toEqual({
      ok: true,
      controllers: [
        { name: 'node', ok: true, detail: 'node detail' },
        { name: 'pods', ok: true, detail: 'pods detail' },
      ],
    });
    const h = healthOf([part('node', log), part('down', log), part('api', log, 'health')]);
    expect(h.ok).toBe(false);
    expect(h.controllers.map((c) => [c.name, c.ok])).toEqual([['node', true], ['down', false], ['api', false]]);
    expect(h.controllers[2]!.detail).toBe('health check failed: no answer');
  });
});
