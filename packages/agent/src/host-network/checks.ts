/** Checks of the values host-network commands carry (interface names, addresses), before any reaches a shell or a request. */
import { AgentError } from '../errors';

/** An interface name (IFNAMSIZ allows 15 characters). */
export const NAME_RE = /^[A-Za-z0-9_.-]{1,15}$/;

/** `value` when it passes `valid` (a pattern or a predicate); otherwise AgentError INVALID_CONFIG naming `what`. */
export function check(valid: RegExp | ((value: string) => boolean), value: string, what: string): string {
  if (!(typeof valid === 'function' ? valid(value) : valid.test(value))) throw new AgentError('INVALID_CONFIG', `invalid ${what}: ${JSON.stringify(value)}`, value, what);
  return value;
}
