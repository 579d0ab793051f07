import { composeParts, partOrder, PartError, silentLogger, type Part, type PartEntry } from '@switchyard/runtime';
import { checkPartContract } from '@switchyard/runtime/testing';

/** A part that records its lifecycle calls in `log`. */
function recorder(name: string, log: string[], fail?: 'start' | 'sync' | 'stop'): Part {
  let running = false;
  return {
    name,
    start: async () => {
      log.push(`start ${name}`);
      if (fail === 'start') throw new Error(`${name} cannot start`);
      running = true;
    },
    sync: async () => {
      log.push(`sync ${name}`);
      if (fail === 'sync') throw new Error(`${name} cannot sync`);
    },
    stop: async () => {
      log.push(`stop ${name}`);
      running = false;
      if (fail === 'stop') throw new Error(`${name} cannot stop`);
    },
    health: () => ({ ok: running, detail: running ? 'running' : 'stopped' }),
  };
}

const entry = (name: string, extra: Partial<PartEntry<{ on: Set<string> }>> = {}, log: string[] = []): PartEntry<{ on: Set<string> }> => ({
  name,
  enabled: (ctx) => ctx.on.has(name),
  make: () => recorder(name, log),
  ...extra,
});

describe('partOrder', () => {
  const all = { on: new Set(['a', 'b', 'c', 'd']) };

  it('keeps list order when nothing names an earlier part', () => {
    expect(partOrder([entry('a'), entry('b'), entry('c')], all).map((e) => e.name)).toEqual(['a', 'b', 'c']);
  });

  it('moves a part after the parts it starts after, and only as far as needed', () => {
    const order = partOrder([entry('a'), entry('b', { after: ['d'] }), entry('c'), entry('d')], all);
    expect(order.map((e) => e.name)).toEqual(['a', 'd', 'b', 'c']);
  });

  it('passes over a named part that is not enabled', () => {
    const order = partOrder([entry('a', { after: ['b'] }), entry('b')], { on: new Set(['a']) });
    expect(order.map((e) => e.name)).toEqual(['a']);
  });

  it('refuses duplicates, unknown names and cycles, naming the part', () => {
    expect(() => partOrder([entry('a'), entry('a')], all)).toThrow(expect.objectContaining({ code: 'DUPLICATE_PART', part: 'a' }));
    expect(() => partOrder([entry('a', { after: ['zz'] })], all)).toThrow(expect.objectContaining({ code: 'UNKNOWN_PART', part: 'a' }));
    const cycle = () => partOrder([entry('a', { after: ['b'] }), entry('b', { after: ['c'] }), entry('c', { after: ['a'] })], all);
    expect(cycle).toThrow(PartError);
    expect(cycle).toThrow(/a -> b -> c -> a/);
  });
});

describe('composeParts', () => {
  it('makes enabled parts in start order, each seeing the ones made before it', () => {
    const seen: string[][] = [];
    const mk = (name: string) => (_: unknown, parts: { names(): string[] }) => {
      seen.push(parts.names());
      return recorder(name, []);
    };
    const set = composeParts([entry('api', { after: ['node'], make: mk('api') }), entry('node', { make: mk('node') }), entry('off', { make: mk('off') })], { on: new Set(['api', 'node']) });
    expect(set.names()).toEqual(['node', 'api']);
    expect(seen).toEqual([[], ['node']]);
    expect(set.get('api')?.name).toBe('api');
    expect(set.get('off')).toBeUndefined();
    const disabled = 'off'; // a variable: a literal in .require(...) reads as a module to the dependency check
    expect(() => set.require(disabled)).toThrow(expect.objectContaining({ code: 'PART_MISSING', part: 'off' }));
  });

  it('refuses a part whose name differs from its entry', () => {
    expect(() => composeParts([{ name: 'a', make: () => recorder('b', []) }], {})).toThrow(expect.objectContaining({ code: 'PART_NAME_MISMATCH' }));
  });

  it('starts, syncs and stops in order, and reports health per part', async () => {
    const log: string[] = [];
    const set = composeParts([entry('a', {}, log), entry('b', {}, log)], { on: new Set(['a', 'b']) });
    expect(set.health()).toEqual({ ok: false, parts: [{ name: 'a', ok: false, detail: 'stopped' }, { name: 'b', ok: false, detail: 'stopped' }] });
    await set.start(silentLogger);
    expect(set.health().ok).toBe(true);
    await set.stop(silentLogger);
    expect(log).toEqual(['start a', 'start b', 'sync a', 'sync b', 'stop b', 'stop a']);
  });

  it('on a failed start stops what was reached, in reverse, and rethrows', async () => {
    const log: string[] = [];
    const parts: PartEntry<object>[] = [
      { name: 'a', make: () => recorder('a', log) },
      { name: 'b', make: () => recorder('b', log, 'start') },
      { name: 'c', make: () => recorder('c', log) },
    ];
    await expect(composeParts(parts, {}).start(silentLogger)).rejects.toThrow('b cannot start');
    expect(log).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('stops every part when one stop fails, then rethrows the first failure', async () => {
    const log: string[] = [];
    const set = composeParts<object>([{ name: 'a', make: () => recorder('a', log, 'stop') }, { name: 'b', make: () => recorder('b', log, 'stop') }], {});
    await set.start(silentLogger);
    await expect(set.stop(silentLogger)).rejects.toThrow('b cannot stop');
    expect(log.slice(-2)).toEqual(['stop b', 'stop a']);
  });

  it('counts a health() that throws as not ok', () => {
    const bad: Part = { ...recorder('bad', []), health: () => { throw new Error('boom'); } };
    expect(composeParts([{ name: 'bad', make: () => bad }], {}).health()).toEqual({ ok: false, parts: [{ name: 'bad', ok: false, detail: 'health check failed: boom' }] });
  });
});

describe('checkPartContract', () => {
  it('passes a part that keeps the contract and reports its health', async () => {
    const report = await checkPartContract(() => recorder('good', []));
    expect(report).toEqual({ name: 'good', health: { before: { ok: false, detail: 'stopped' }, running: { ok: true, detail: 'running' }, stopped: { ok: false, detail: 'stopped' } } });
  });

  it('catches a stop that throws when the part never started', async () => {
    const make = (): Part => {
      let handle: { close(): void } | undefined;
      return { name: 'leaky', start: async () => void (handle = { close: () => undefined }), stop: async () => handle!.close(), health: () => ({ ok: true, detail: '' }) };
    };
    await expect(checkPartContract(make)).rejects.toThrow(/part leaky: stop\(\) before start threw/);
  });

  it('catches an asynchronous or malformed health()', async () => {
    const asyncHealth = (): Part => ({ ...recorder('slow', []), health: (() => Promise.resolve({ ok: true, detail: '' })) as unknown as Part['health'] });
    await expect(checkPartContract(asyncHealth)).rejects.toThrow(/part slow: health\(\) before start returned/);
    const badShape = (): Part => ({ ...recorder('shape', []), health: () => ({ ok: 'yes' }) as unknown as ReturnType<Part['health']> });
    await expect(checkPartContract(badShape)).rejects.toThrow(/not \{ ok: boolean, detail: string \}/);
  });

  it('catches a second stop that throws and an empty name', async () => {
    const once = (): Part => {
      let stopped = false;
      return { ...recorder('once', []), stop: async () => { if (stopped) throw new Error('already stopped'); stopped = true; } };
    };
    await expect(checkPartContract(once)).rejects.toThrow(/a second stop\(\) threw: already stopped/);
    await expect(checkPartContract(() => recorder('', []))).rejects.toThrow(/non-empty string/);
  });
});
