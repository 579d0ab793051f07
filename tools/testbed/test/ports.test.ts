import { createServer } from 'node:net';
import { ephemeralLow, freePort, portIsFree } from '../src/ports';

it('hands out distinct ports below the ephemeral range that a child can bind', async () => {
  const low = ephemeralLow();
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  expect(new Set(ports).size).toBe(20);
  for (const p of ports) {
    expect(p).toBeGreaterThanOrEqual(10_000);
    expect(p).toBeLessThan(low);
  }
  const s = createServer();
  await new Promise<void>((r) => s.listen(ports[0], '127.0.0.1', () => r()));
  try {
    expect(await portIsFree(ports[0]!)).toBe(false);
  } finally {
    await new Promise((r) => s.close(r));
  }
  expect(await portIsFree(ports[0]!)).toBe(true);
});
