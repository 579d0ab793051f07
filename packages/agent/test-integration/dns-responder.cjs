// A tiny authoritative DNS server for the FQDN integration test, run inside a pod's netns:
//   node dns-responder.cjs <zone.json> [port]
// The zone file is read on every query, so the test changes answers by rewriting it:
//   { "svc.example.test": { "a": ["10.0.0.5"], "aaaa": ["fd00::5"], "ttl": 30 }, "alias.example.test": { "cname": "svc.example.test", "ttl": 30 },
//     "junk.example.test": { "junk": true } }
// Written independently of the agent's DNS codec on purpose: it is the reference the codec meets.
'use strict';
const { Buffer } = require('node:buffer');
const dgram = require('node:dgram');
const fs = require('node:fs');

const [zoneFile, portArg] = process.argv.slice(2);
const port = Number(portArg ?? 53);

/** Name bytes without compression. */
function encodeName(name) {
  const parts = [];
  for (const label of name.split('.').filter(Boolean)) parts.push(Buffer.from([label.length]), Buffer.from(label, 'ascii'));
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** The 16 bytes of IPv6 text (one `::` at most). */
function ipv6Bytes(text) {
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

function record(name, type, ttl, rdata) {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(ttl, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([encodeName(name), fixed, rdata]);
}

function answer(query) {
  // Question: uncompressed name from offset 12, then type and class.
  let at = 12;
  const labels = [];
  while (at < query.length && query[at] !== 0) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
    at += 1 + query[at];
  }
  const questionEnd = at + 5;
  const qname = labels.join('.').toLowerCase();
  const qtype = query.readUInt16BE(at + 1);
  const zone = JSON.parse(fs.readFileSync(zoneFile, 'utf8'));
  // A broken response on purpose: the query's id, a response header claiming 5 questions, no body.
  if (zone[qname]?.junk) return Buffer.concat([query.subarray(0, 2), Buffer.from([0x81, 0x80, 0, 5, 0, 1, 0, 0, 0, 0, 3, 0x61])]);
  const records = [];
  let name = qname;
  for (let hops = 0; hops < 8 && zone[name]; hops++) {
    const e = zone[name];
    if (e.cname) {
      records.push(record(name, 5, e.ttl, encodeName(e.cname)));
      name = e.cname;
      continue;
    }
    if (qtype === 1) for (const ip of e.a ?? []) records.push(record(name, 1, e.ttl, Buffer.from(ip.split('.').map(Number))));
    if (qtype === 28) for (const ip of e.aaaa ?? []) records.push(record(name, 28, e.ttl, ipv6Bytes(ip)));
    break;
  }
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // QR, opcode 0, AA, RD copied from the query, RA; NXDOMAIN for names outside the zone.
  header.writeUInt16BE(0x8480 | (query[2] & 0x01) << 8 | (zone[qname] ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

// One socket per family: queries to the pod's IPv4 and (on a dual-stack pod) IPv6 address.
for (const [type, address] of [['udp4', '0.0.0.0'], ['udp6', '::']]) {
  const sock = dgram.createSocket(type === 'udp6' ? { type, ipv6Only: true } : { type });
  sock.on('message', (msg, rinfo) => {
    try {
      sock.send(answer(msg), rinfo.port, rinfo.address);
    } catch (e) {
      process.stderr.write(`bad query: ${e}\n`);
    }
  });
  // An IPv4-only pod has no IPv6 to bind: that socket is left out.
  sock.on('error', (e) => process.stderr.write(`${type}: ${e.message}\n`));
  sock.bind(port, address, () => process.stdout.write(`dns responder on ${address} ${port}\n`));
}
