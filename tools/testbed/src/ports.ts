import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports for programs a test or the lab starts with a fixed `--port`.
 *
 * Asking the kernel for port 0 and closing the probe returns a port from the ephemeral range
 * (32768-60999 by default). Any outgoing connection on the machine may take that port as its
 * local port before the child binds it, and the child then exits with EADDRINUSE: CI saw a lab
 * controller exit that way while the other lane was busy. Ports below the ephemeral range are
 * never chosen by connect(), so a port picked there and found free stays free unless another
 * program binds it explicitly.
 */

const LOWEST = 10_000;
const given = new Set<number>();

/** The kernel's ephemeral range's first port (`net.ipv4.ip_local_port_range`), 32768 if unreadable. */
export function ephemeralLow(): number {
  try {
    const low = Number.parseInt(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0] ?? '', 10);
    return Number.isInteger(low) && low > LOWEST + 1000 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Whether nothing holds `port` on any address (a wildcard bind succeeds). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '0.0.0.0', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/**
 * A TCP port below the ephemeral range that nothing holds now and that this process has not
 * handed out before. Chosen at random, so parallel test processes rarely try the same one.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (high - LOWEST));
    if (given.has(port)) continue;
    if (await portIsFree(port)) {
      given.add(port);
      return port;
    }
  }
  throw new Error(`freePort: no free port in ${LOWEST}..${high - 1} after 200 tries`);
}
