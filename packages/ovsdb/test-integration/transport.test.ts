// TCP and TLS (client certificate) transports against a real ovsdb-server listening on 127.0.0.1.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { run, waitFor, Testbed } from '@switchyard/testbed';
import { OvsdbClient, ops, unwrap } from '../src/index';

let tb: Testbed;
let dir: string;
// Below the ephemeral range (32768-60999 by default): a port there can be held by any outgoing
// connection of the suites running beside this one, and ovsdb-server would not get it.
const tcpPort = 12000 + Math.floor(Math.random() * 20000);
const sslPort = tcpPort + 1;
const pem = (f: string) => readFileSync(join(dir, f));

async function makeCert(name: string, ext: string): Promise<void> {
  const f = (x: string) => join(dir, x);
  await run([
    'openssl',
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f(`${name}.key`),
    '-out',
    f(`${name}.csr`),
    '-subj',
    `/CN=${name}`,
  ]);
  writeFileSync(f(`${name}.ext`), ext);
  await run([
    'openssl',
    'x509',
    '-req',
    '-in',
    f(`${name}.csr`),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f(`${name}.pem`),
    '-days',
    '2',
    '-extfile',
    f(`${name}.ext`),
  ]);
}

beforeAll(async () => {
  tb = await Testbed.create();
  dir = join(tb.baseDir, 'tls');
  mkdirSync(dir, { recursive: true });
  const f = (x: string) => join(dir, x);
  await run([
    'openssl',
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=switchyard-test-ca',
  ]);
  await makeCert('server', 'subjectAltName=IP:127.0.0.1\n');
  await makeCert('client', 'extendedKeyUsage=clientAuth\n');
  await run(['ovsdb-tool', 'create', f('conf.db'), '/usr/share/openvswitch/vswitch.ovsschema']);
  await run([
    'ovsdb-server',
    `--remote=punix:${f('db.sock')}`,
    `--remote=ptcp:${tcpPort}:127.0.0.1`,
    `--remote=pssl:${sslPort}:127.0.0.1`,
    `--private-key=${f('server.key')}`,
    `--certificate=${f('server.pem')}`,
    `--ca-cert=${f('ca.pem')}`,
    `--pidfile=${f('ovsdb.pid')}`,
    '--detach',
    `--log-file=${f('ovsdb.log')}`,
    `--unixctl=${f('ovsdb.ctl')}`,
    f('conf.db'),
  ]);
  tb.trackPid(Number(readFileSync(f('ovsdb.pid'), 'utf8').trim()));
  await waitFor('ovsdb-server pidfile', () => existsSync(f('ovsdb.pid')));
  // Its TCP and SSL listeners accept connections (opened as it starts serving, not before it detaches).
  const accepts = (port: number): Promise<boolean> => new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => (sock.destroy(), resolve(true)));
    sock.once('error', () => resolve(false));
  });
  await waitFor('ovsdb-server listening on tcp and ssl', async () => (await accepts(tcpPort)) && (await accepts(sslPort)), { timeoutMs: 20_000, intervalMs: 50 });
  await run(['ovs-vsctl', `--db=tcp:127.0.0.1:${tcpPort}`, '--no-wait', '--timeout=20', 'init']);
});
afterAll(async () => {
  await tb?.cleanup();
});

// One contract, three transports: the same behaviour over unix, tcp and ssl.
describe.each([
  ['unix', () => ({ remote: `unix:${join(dir, 'db.sock')}`, opts: {} })],
  ['tcp', () => ({ remote: `tcp:127.0.0.1:${tcpPort}`, opts: {} })],
  [
    'ssl',
    () => ({
      remote: `ssl:127.0.0.1:${sslPort}`,
      opts: { tls: { key: pem('client.key'), cert: pem('client.pem'), ca: pem('ca.pem') } },
    }),
  ],
])('%s transport', (kind, endpoint) => {
  test('lists databases, transacts, and delivers monitor updates', async () => {
    const { remote, opts } = endpoint();
    const c = await OvsdbClient.connect(remote, { probeIntervalMs: 0, ...opts });
    try {
      expect(await c.listDbs()).toContain('Open_vSwitch');
      expect(await c.echo(kind)).toEqual([kind]);
      await c.monitorCond('Open_vSwitch', 'm', { Open_vSwitch: { columns: ['external_ids'] } });
      const update = new Promise((resolve) => c.once('update2', (_id, u) => resolve(u)));
      unwrap(
        await c.transact('Open_vSwitch', [
          ops.mutate(
            'Open_vSwitch',
            [],
            [
              ['external_ids', 'delete', [kind]],
              ['external_ids', 'insert', { [kind]: 'seen' }],
            ],
          ),
        ]),
      );
      expect(JSON.stringify(await update)).toContain('seen');
    } finally {
      c.close();
    }
  });

  test('a large reply (a 2 MB value) arrives intact', async () => {
    const { remote, opts } = endpoint();
    const c = await OvsdbClient.connect(remote, { probeIntervalMs: 0, ...opts });
    try {
      const big = 'x'.repeat(2 * 1024 * 1024);
      unwrap(
        await c.transact('Open_vSwitch', [
          ops.mutate(
            'Open_vSwitch',
            [],
            [
              ['external_ids', 'delete', ['big']],
              ['external_ids', 'insert', { big }],
            ],
          ),
        ]),
      );
      const r = unwrap(await c.transact('Open_vSwitch', [ops.select('Open_vSwitch', [], ['external_ids'])]));
      const row = r.results[0]?.op === 'select' ? r.results[0].rows[0] : undefined;
      expect((row?.external_ids as Map<string, string>).get('big')).toHaveLength(big.length);
    } finally {
      c.close();
    }
  });
});

test('ssl: remote with a client certificate verifies the server and is accepted', async () => {
  const c = await OvsdbClient.connect(`ssl:127.0.0.1:${sslPort}`, {
    probeIntervalMs: 0,
    tls: { key: pem('client.key'), cert: pem('client.pem'), ca: pem('ca.pem') },
  });
  try {
    expect(await c.listDbs()).toContain('Open_vSwitch');
  } finally {
    c.close();
  }
});

test('ssl: a server certificate from an unknown CA is refused', async () => {
  await expect(
    OvsdbClient.connect(`ssl:127.0.0.1:${sslPort}`, {
      probeIntervalMs: 0,
      reconnect: false,
      tls: { key: pem('client.key'), cert: pem('client.pem'), ca: pem('client.pem') },
    }),
  ).rejects.toMatchObject({ code: 'OVSDB_CONNECT_FAILED' });
});

test('ssl: without a client certificate the server does not serve the session', async () => {
  const attempt = OvsdbClient.connect(`ssl:127.0.0.1:${sslPort}`, {
    probeIntervalMs: 0,
    reconnect: false,
    tls: { ca: pem('ca.pem') },
  }).then(async (c) => {
    try {
      return await c.listDbs();
    } finally {
      c.close();
    }
  });
  await expect(attempt).rejects.toMatchObject({
    code: expect.stringMatching(/OVSDB_CONNECT_FAILED|OVSDB_DISCONNECTED/),
  });
});
