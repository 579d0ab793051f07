// The watch client against a small HTTPS server speaking the controlplane protocol (frames, watch
// mode header, 410): the view follows the stream, HTTP errors come back with their body, the
// managed loop resumes and resyncs.
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWatchEventFrame, type controlplane } from '@switchyard/apis';
import { issueCertificate, type CertificateAndKey } from '@switchyard/pki';
import { ControlplaneClient } from '../src/index';

type E = controlplane.WatchEvent;
const pod = (name: string, ip: string): controlplane.GroupMember => ({ pod: { name, namespace: 'x' }, ips: [ip] });
const bookmark = (rv: string): E => ({ type: 'BOOKMARK', kind: 'Bookmark', object: { resourceVersion: rv } });
const ag = (name: string, members: controlplane.GroupMember[]): E => ({ type: 'ADDED', kind: 'AddressGroup', object: { name, groupMembers: members } });
const patch = (name: string, added: controlplane.GroupMember[], rv: string): E => ({
  type: 'MODIFIED',
  kind: 'AddressGroupPatch',
  resourceVersion: rv,
  object: { name, addedGroupMembers: added, removedGroupMembers: [] },
});
const expired: E = { type: 'ERROR', kind: 'Status', object: { code: 410, reason: 'Expired', message: 'too old' } };

interface Request {
  path: string;
  authorization: string | undefined;
}

/** Answers each watch with the next scripted reply; records the requests. */
async function server(ca: CertificateAndKey, replies: ((res: ServerResponse, req: Request) => void)[], sans = ['127.0.0.1']) {
  const serving = await issueCertificate({ commonName: 'controller', sans, validityDays: 1, ca: false, extendedKeyUsage: ['serverAuth'], issuer: ca });
  const requests: Request[] = [];
  const s = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const r = { path: req.url ?? '', authorization: req.headers.authorization };
    requests.push(r);
    const reply = replies.shift();
    if (reply) reply(res, r);
    else res.writeHead(503).end();
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(s.address() as AddressInfo).port}`, requests, close: () => new Promise<void>((r) => s.close(() => r())), server: s };
}

const stream = (mode: 'initial' | 'resume', events: E[], end = true) => (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/vnd.switchyard.controlplane.watch+protobuf;stream=delimited', 'x-switchyard-watch-mode': mode });
  for (const e of events) res.write(encodeWatchEventFrame(e));
  if (end) res.end();
};

let ca: CertificateAndKey;
beforeAll(async () => {
  ca = await issueCertificate({ commonName: 'test-ca', validityDays: 1, ca: true });
}, 30_000);

test('an opened stream feeds the view, events and byte counts; the node, token and resource are in the request', async () => {
  const srv = await server(ca, [stream('initial', [ag('g', [pod('a', '10.0.0.1')]), bookmark('e.1'), patch('g', [pod('b', '10.0.0.2')], 'e.2')], false)]);
  const events: E[] = [];
  const c = new ControlplaneClient({ url: srv.url, caPem: ca.certPem, nodeName: 'node-a', token: () => 'secret', resource: 'addressgroups', onEvent: (e) => events.push(e) });
  expect(await c.open()).toEqual({ status: 200, mode: 'initial' });
  await c.waitFor(() => c.view.resourceVersion === 'e.2', 5000, 'patch');
  expect(c.view.synced).toBe(true);
  expect(c.view.snapshot().addressGroups[0]?.groupMembers.map((m) => m.pod?.name).sort()).toEqual(['a', 'b']);
  expect(events.map((e) => e.kind)).toEqual(['AddressGroup', 'Bookmark', 'AddressGroupPatch']);
  expect(c.bytesReceived).toBeGreaterThan(0);
  expect(srv.requests[0]).toEqual({ path: '/apis/controlplane.switchyard.io/v1beta2/addressgroups?watch=true&nodeName=node-a', authorization: 'Bearer secret' });
  c.close();
  await c.ended();
  expect(c.connected).toBe(false);
  await srv.close();
});

test('an HTTP error before the stream resolves with its status and Status body instead of throwing', async () => {
  const body = JSON.stringify({ kind: 'Status', code: 403, message: 'node "a" may not access node "b"' });
  const srv = await server(ca, [(res) => res.writeHead(403, { 'content-type': 'application/json' }).end(body)]);
  const c = new ControlplaneClient({ url: srv.url, caPem: ca.certPem, nodeName: 'b' });
  expect(await c.open()).toEqual({ status: 403, body });
  await srv.close();
});

test('the managed loop resumes from the last resourceVersion, resyncs after 410 and backs off after errors', async () => {
  const sleeps: number[] = [];
  const srv = await server(ca, [
    stream('initial', [ag('g', [pod('a', '10.0.0.1')]), bookmark('e.1')]),
    stream('resume', [patch('g', [pod('b', '10.0.0.2')], 'e.2'), expired]),
    (res) => res.writeHead(503).end(),
    stream('initial', [ag('g', [pod('c', '10.0.0.3')]), bookmark('f.1')], false),
  ]);
  let changes = 0;
  const c = new ControlplaneClient({ url: srv.url, caPem: ca.certPem, nodeName: 'n', onChange: () => changes++, sleep: async (ms) => void sleeps.push(ms), backoff: { initialMs: 100 } });
  c.start();
  await c.waitFor(() => c.view.resourceVersion === 'f.1', 10_000, 'resync');
  expect(srv.requests.map((r) => new URL(r.path, 'https://x').searchParams.get('resourceVersion'))).toEqual([null, 'e.1', null, null]);
  expect(c.stats).toEqual({ initial: 2, resume: 1, expired: 1, failures: 1 });
  expect(sleeps).toHaveLength(1);
  expect(sleeps[0]).toBeGreaterThanOrEqual(50);
  expect(c.view.snapshot().addressGroups[0]?.groupMembers.map((m) => m.pod?.name)).toEqual(['c']);
  expect(changes).toBeGreaterThanOrEqual(3);
  await c.stop();
  srv.server.closeAllConnections();
  await srv.close();
});

test('a controller reached at an address its certificate does not name is checked against serverName (the Service DNS name)', async () => {
  // As in a cluster: the URL holds the Service's ClusterIP, the certificate the Service's DNS names.
  const srv = await server(ca, [stream('initial', [bookmark('e.1')], false), stream('initial', [bookmark('e.1')], false)], ['switchyard.kube-system.svc']);
  const byIp = new ControlplaneClient({ url: srv.url, caPem: ca.certPem, nodeName: 'node-a' });
  await expect(byIp.open()).rejects.toThrow(/IP: 127\.0\.0\.1 is not in the cert's list|altnames/);
  const byName = new ControlplaneClient({ url: srv.url, caPem: ca.certPem, nodeName: 'node-a', serverName: 'switchyard.kube-system.svc' });
  expect(await byName.open()).toEqual({ status: 200, mode: 'initial' });
  byName.close();
  await srv.close();
});

test('clients share a TLS context per CA, yet a client trusting another CA is refused on a shared keep-alive agent', async () => {
  // The context is cached by CA; the request still names its CA so the agent never hands a
  // socket verified against one CA to a client that trusts another.
  const other = await issueCertificate({ commonName: 'other-ca', validityDays: 1, ca: true });
  const replies = Array.from({ length: 3 }, () => (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  const srv = await server(ca, replies);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  const status: controlplane.NetworkPolicyStatus = { name: 'np-1', nodes: [] };
  const trusted = (node: string) => new ControlplaneClient({ url: srv.url, caPem: ca.certPem, nodeName: node, agent });
  try {
    await trusted('node-a').reportStatus(status);
    await trusted('node-b').reportStatus(status);
    const stranger = new ControlplaneClient({ url: srv.url, caPem: other.certPem, nodeName: 'node-c', agent });
    await expect(stranger.reportStatus(status)).rejects.toThrow(/self[- ]signed|unable to verify|unable to get local issuer/);
    expect(srv.requests).toHaveLength(2);
  } finally {
    agent.destroy();
    srv.server.closeAllConnections();
    await srv.close();
  }
});
