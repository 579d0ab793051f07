// eventually / eventuallyPasses: a wait fails until its condition holds, and at its deadline with the last reason.
import { stripVTControlCharacters } from 'node:util';
import { eventually, eventuallyPasses, WaitTimeoutError } from '../src/index';

/** A callback that resolves to `empty` for its first `n` tries, then to `value`; counts its tries. */
function appearsAfter<T, E>(n: number, empty: E, value: T): { fn: () => Promise<T | E>; tries: () => number } {
  let tries = 0;
  return { fn: async () => (++tries > n ? value : empty), tries: () => tries };
}

describe('eventually', () => {
  it('keeps waiting while the callback resolves to undefined, and returns the value it then resolves to', async () => {
    const svc = { spec: { clusterIP: '10.96.0.10' } };
    const lookup = appearsAfter(5, undefined, svc);
    await expect(eventually(lookup.fn, { intervalMs: 1 })).resolves.toBe(svc);
    expect(lookup.tries()).toBe(6);
  });

  it('treats null and false as not yet too, but 0 and the empty string as values', async () => {
    const fromNull = appearsAfter(3, null, 'x');
    await expect(eventually(fromNull.fn, { intervalMs: 1 })).resolves.toBe('x');
    expect(fromNull.tries()).toBe(4);
    const fromFalse = appearsAfter(3, false, true);
    await expect(eventually(fromFalse.fn, { intervalMs: 1 })).resolves.toBe(true);
    expect(fromFalse.tries()).toBe(4);
    await expect(eventually(() => 0)).resolves.toBe(0);
    await expect(eventually(() => '')).resolves.toBe('');
  });

  it('keeps waiting while the callback throws, and returns its first value', async () => {
    let tries = 0;
    const v = await eventually(
      () => {
        if (++tries < 4) throw new Error(`not yet (try ${tries})`);
        return tries;
      },
      { intervalMs: 1 },
    );
    expect(v).toBe(4);
  });

  it('fails at its deadline with a WaitTimeoutError naming the wait when the callback still resolves to undefined', async () => {
    const never = appearsAfter(Infinity, undefined, 'never');
    const t0 = Date.now();
    const err = await eventually(never.fn, { timeoutMs: 200, intervalMs: 10, what: 'the imported Service' }).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err).toMatchObject({ code: 'EWAITTIMEOUT', what: 'the imported Service', timeoutMs: 200, last: undefined });
    expect((err as Error).message).toBe('timed out after 200 ms waiting for the imported Service: the last try resolved to undefined');
    expect(never.tries()).toBeGreaterThan(2);
  });

  it('fails at its deadline with the last error the callback threw', async () => {
    let tries = 0;
    const err = await eventually(
      (): string => {
        throw new Error(`try ${++tries}`);
      },
      { timeoutMs: 100, intervalMs: 5 },
    ).catch((e: unknown) => e);
    expect(tries).toBeGreaterThan(2);
    expect((err as Error).message).toBe(`try ${tries}`);
  });

  it('reports the latest reason when the callback alternates between throwing and resolving to nothing', async () => {
    let tries = 0;
    const err = await eventually(
      () => {
        if (++tries % 2 === 0) throw new Error(`try ${tries}`);
        return null;
      },
      { timeoutMs: 100, intervalMs: 5 },
    ).catch((e: unknown) => e);
    if (tries % 2 === 0) expect((err as Error).message).toBe(`try ${tries}`);
    else expect(err).toMatchObject({ code: 'EWAITTIMEOUT', last: null });
  });

  it('does not accept a callback that returns nothing: at compile time, and at run time it never passes', async () => {
    // @ts-expect-error an assertion (a callback returning void) belongs to eventuallyPasses
    const err = await eventually(() => undefined as void, { timeoutMs: 50, intervalMs: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
  });
});

describe('eventuallyPasses', () => {
  it('retries the assertion until it holds', async () => {
    let n = 0;
    await eventuallyPasses(
      () => {
        n++;
        expect(n).toBe(3);
      },
      { intervalMs: 1 },
    );
    expect(n).toBe(3);
  });

  it('fails at its deadline with the last assertion error', async () => {
    let n = 0;
    const err = await eventuallyPasses(
      async () => {
        n++;
        expect(n).toBe(-1);
      },
      { timeoutMs: 100, intervalMs: 5 },
    ).catch((e: unknown) => e);
    // The matcher's message may carry colour codes (jest colours it when it thinks it may).
    expect(stripVTControlCharacters((err as Error).message)).toContain(`Received: ${n}`);
  });
});
