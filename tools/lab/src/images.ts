// What the lab's pods run in place of their images' programs: the lab has no container images, so
// an exec runs its command on the host in the pod's network namespace, and the few image programs
// a check needs (agnhost's `connect`, which `yardctl check installation` execs as antctl does) are
// small stand-ins with the same arguments, output and exit codes.

/** Whether `image` is agnhost (`registry.k8s.io/e2e-test-images/agnhost:2.x`, or just `agnhost`). */
export function isAgnhostImage(image: string): boolean {
  return /(^|\/)agnhost(:|@|$)/.test(image);
}

/**
 * The argv to run for `command` in a container of `image`: `/agnhost ...` of an agnhost image goes
 * to {@link AGNHOST_STANDIN}; anything else runs as given (found on the host's PATH).
 */
export function imageCommand(image: string, command: readonly string[]): string[] {
  if (command[0] === '/agnhost' && isAgnhostImage(image)) return [process.execPath, '-e', AGNHOST_STANDIN, ...command.slice(1)];
  return [...command];
}

/**
 * agnhost's `connect <host:port> [--timeout=<duration>] [--protocol=tcp]` (test/images/agnhost/connect):
 * exit 0 once a TCP connection opens; else exit 1 with `TIMEOUT`, `REFUSED`, `DNS: ...` or
 * `OTHER: ...` on stderr. The timeout defaults to 5s, as agnhost's. Other subcommands exit 1 naming themselves.
 */
export const AGNHOST_STANDIN = [
  "const net = require('node:net');",
  'const args = process.argv.slice(1);',
  "const fail = (m) => { process.stderr.write(m + '\\n'); process.exit(1); };",
  "if (args[0] !== 'connect') fail('the lab\\'s agnhost stand-in serves only connect, not ' + JSON.stringify(args[0] ?? ''));",
  'let timeoutMs = 5000;',
  "let protocol = 'tcp';",
  'let target;',
  'for (let i = 1; i < args.length; i++) {',
  "  const m = /^--?(timeout|protocol)(?:=(.*))?$/.exec(args[i]);",
  '  if (!m) { target = args[i]; continue; }',
  '  const v = m[2] ?? args[++i] ?? "";',
  "  if (m[1] === 'protocol') { protocol = v; continue; }",
  '  const d = /^(\\d+(?:\\.\\d+)?)(ms|s|m)$/.exec(v);',
  "  if (!d) fail('OTHER: --timeout: invalid duration ' + JSON.stringify(v));",
  "  timeoutMs = Number(d[1]) * (d[2] === 'ms' ? 1 : d[2] === 's' ? 1000 : 60000);",
  '}',
  "if (protocol !== 'tcp') fail('OTHER: --protocol: the lab\\'s agnhost stand-in connects over tcp only, not ' + JSON.stringify(protocol));",
  "const at = (target ?? '').lastIndexOf(':');",
  "if (at <= 0) fail('OTHER: expected host:port, got ' + JSON.stringify(target ?? ''));",
  "const host = target.slice(0, at).replace(/^\\[(.*)\\]$/, '$1');",
  'const port = Number(target.slice(at + 1));',
  'const s = net.connect({ host, port });',
  "const timer = setTimeout(() => { s.destroy(); fail('TIMEOUT'); }, timeoutMs);",
  "s.on('connect', () => { clearTimeout(timer); s.destroy(); process.exit(0); });",
  "s.on('error', (e) => fail(e.code === 'ECONNREFUSED' ? 'REFUSED' : e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' ? 'DNS: ' + e.message : 'OTHER: ' + e.message));",
].join('\n');
