// DNS response decoding for FQDN rules: compressed names, CNAME chains, TTLs, frames, and
// garbage that must end in a DnsParseError rather than anything worse.
import fc from 'fast-check';
import {
  DnsParseError,
  decodeDnsMessage,
  dnsPayloadOfFrame,
  encodeDnsResponse,
  resolveAnswers,
  type DnsAnswerSpec,
} from '../src/features/policy/dns';

/**
 * A response as a recursive resolver writes it, with name compression: www.example.com ->
 * CNAME web.example.com (TTL 300, target compressed against the question) -> A 93.184.216.34
 * (TTL 60) and A 93.184.216.35 (TTL 120), plus an AAAA for the canonical name.
 */
const compressed = Uint8Array.from([
  0x12, 0x34, 0x81, 0x80, 0, 1, 0, 4, 0, 0, 0, 0,
  // question at 12: 3www7example3com0, type A, class IN
  3, 0x77, 0x77, 0x77, 7, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 3, 0x63, 0x6f, 0x6d, 0, 0, 1, 0, 1,
  // CNAME: name -> 12; rdata 3web + pointer to 16 (example.com)
  0xc0, 12, 0, 5, 0, 1, 0, 0, 1, 0x2c, 0, 6, 3, 0x77, 0x65, 0x62, 0xc0, 16,
  // A for web.example.com (the CNAME target at offset 45)
  0xc0, 45, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 93, 184, 216, 34,
  0xc0, 45, 0, 1, 0, 1, 0, 0, 0, 120, 0, 4, 93, 184, 216, 35,
  // AAAA 2606:2800:220:1::248 for web.example.com
  0xc0, 45, 0, 28, 0, 1, 0, 0, 0, 30, 0, 16, 0x26, 0x06, 0x28, 0x00, 0x02, 0x20, 0, 1, 0, 0, 0, 0, 0, 0, 0x02, 0x48,
]);

describe('decodeDnsMessage', () => {
  it('decodes header, question and compressed answers of a CNAME response', () => {
    const m = decodeDnsMessage(compressed);
    expect(m).toMatchObject({ id: 0x1234, qr: true, opcode: 0, tc: false, rcode: 0 });
    expect(m.questions).toEqual([{ name: 'www.example.com', type: 1, class: 1 }]);
    expect(m.answers.map((a) => [a.name, a.kind, a.ttl])).toEqual([
      ['www.example.com', 'CNAME', 300],
      ['web.example.com', 'A', 60],
      ['web.example.com', 'A', 120],
      ['web.example.com', 'AAAA', 30],
    ]);
    expect(m.answers[0]).toMatchObject({ target: 'web.example.com' });
    expect(m.answers[3]).toMatchObject({ address: '2606:2800:220:1::248' });
  });

  it('follows the CNAME chain and bounds each address by the smallest TTL on the way', () => {
    expect(resolveAnswers(decodeDnsMessage(compressed))).toEqual([
      {
        names: ['www.example.com', 'web.example.com'],
        addresses: [
          { address: '93.184.216.34', family: 4, ttl: 60 },
          { address: '93.184.216.35', family: 4, ttl: 120 },
          { address: '2606:2800:220:1::248', family: 6, ttl: 30 },
        ],
      },
    ]);
  });

  it('lower-cases names and ignores records not reachable from the question', () => {
    const msg = encodeDnsResponse({
      id: 1, question: 'Svc.Example.TEST.',
      answers: [
        { name: 'svc.example.test', ttl: 30, kind: 'A', address: '10.0.0.1' },
        { name: 'evil.example.test', ttl: 30, kind: 'A', address: '10.6.6.6' },
      ],
    });
    expect(resolveAnswers(decodeDnsMessage(msg))).toEqual([{ names: ['svc.example.test'], addresses: [{ address: '10.0.0.1', family: 4, ttl: 30 }] }]);
  });

  it('stops at a CNAME loop instead of following it forever', () => {
    const msg = encodeDnsResponse({
      id: 1, question: 'a.test',
      answers: [
        { name: 'a.test', ttl: 30, kind: 'CNAME', target: 'b.test' },
        { name: 'b.test', ttl: 30, kind: 'CNAME', target: 'a.test' },
      ],
    });
    expect(resolveAnswers(decodeDnsMessage(msg))).toEqual([{ names: ['a.test', 'b.test'], addresses: [] }]);
  });

  it('reads a TTL with the top bit set as zero (RFC 2181)', () => {
    const msg = encodeDnsResponse({ id: 1, question: 'x.test', answers: [{ name: 'x.test', ttl: 0x80000001, kind: 'A', address: '10.0.0.1' }] });
    expect(decodeDnsMessage(msg).answers[0]!.ttl).toBe(0);
  });

  it('refuses a compression pointer that does not point backwards (a loop)', () => {
    const m = Uint8Array.from([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1]);
    expect(() => decodeDnsMessage(m)).toThrow(expect.objectContaining({ code: 'NAME_LOOP', path: 'questions[0].name', offset: 12 }));
  });

  it('refuses an A record whose rdata is not 4 bytes', () => {
    const good = encodeDnsResponse({ id: 1, question: 'x.test', answers: [{ name: 'x.test', ttl: 1, kind: 'A', address: '10.0.0.1' }] });
    const bad = Uint8Array.from([...good.subarray(0, good.length - 6), 0, 3, 10, 0, 0]);
    expect(() => decodeDnsMessage(bad)).toThrow(expect.objectContaining({ code: 'BAD_RDATA', path: 'answers[0].rdata' }));
  });

  it('reports a message cut short with where it stopped', () => {
    expect(() => decodeDnsMessage(compressed.subarray(0, 40))).toThrow(expect.objectContaining({ code: 'TRUNCATED', path: 'answers[0].ttl', offset: 39 }));
  });

  const answerArb: fc.Arbitrary<DnsAnswerSpec> = fc.oneof(
    fc.record({ name: fc.constant('q.test'), ttl: fc.nat(0x7fffffff), kind: fc.constant('A' as const), address: fc.ipV4() }),
    fc.record({ name: fc.constant('q.test'), ttl: fc.nat(0x7fffffff), kind: fc.constant('CNAME' as const), target: fc.domain() }),
  );

  it('decodes what the encoder wrote, answer for answer', () => {
    fc.assert(
      fc.property(fc.domain(), fc.array(answerArb, { maxLength: 8 }), (question, answers) => {
        const m = decodeDnsMessage(encodeDnsResponse({ id: 7, question, answers }));
        expect(m.questions[0]!.name).toBe(question.toLowerCase());
        expect(m.answers.map((a) => (a.kind === 'A' ? [a.ttl, a.address] : a.kind === 'CNAME' ? [a.ttl, a.target] : []))).toEqual(
          answers.map((a) => (a.kind === 'CNAME' ? [a.ttl, a.target.toLowerCase()] : [a.ttl, a.kind === 'A' ? a.address : ''])),
        );
      }),
    );
  });

  it('garbage either decodes or throws DnsParseError, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          decodeDnsMessage(bytes);
        } catch (e) {
          expect(e).toBeInstanceOf(DnsParseError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('corrupting bytes of a real response never throws anything but DnsParseError', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(compressed.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), fc.nat(compressed.length), (edits, cut) => {
        const b = compressed.slice(0, Math.max(12, cut));
        for (const [i, v] of edits) if (i < b.length) b[i] = v;
        try {
          const m = decodeDnsMessage(b);
          resolveAnswers(m);
        } catch (e) {
          expect(e).toBeInstanceOf(DnsParseError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

/** Ethernet + IPv4 + UDP (or TCP) from port 53 around a DNS message. */
function frame(message: Uint8Array, opts: { tcp?: boolean; srcPort?: number; vlan?: boolean; pad?: number } = {}): Uint8Array {
  const l4 = opts.tcp
    ? [0, opts.srcPort ?? 53, 0x9c, 0x40, 0, 0, 0, 1, 0, 0, 0, 1, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0, message.length >> 8, message.length & 0xff, ...message]
    : [0, opts.srcPort ?? 53, 0x9c, 0x40, (8 + message.length) >> 8, (8 + message.length) & 0xff, 0, 0, ...message];
  const total = 20 + l4.length;
  const ip = [0x45, 0, total >> 8, total & 0xff, 0, 1, 0x40, 0, 64, opts.tcp ? 6 : 17, 0, 0, 10, 0, 0, 53, 10, 0, 0, 2];
  const eth = [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 53, ...(opts.vlan ? [0x81, 0, 0, 7] : []), 0x08, 0x00];
  return Uint8Array.from([...eth, ...ip, ...l4, ...Array<number>(opts.pad ?? 0).fill(0)]);
}

/** The same over IPv6 (fd00::53 -> fd00::2), with extension headers `ext` (each [next header type, 8-byte body]) first. */
function frame6(message: Uint8Array, opts: { tcp?: boolean; ext?: number[] } = {}): Uint8Array {
  const l4 = opts.tcp
    ? [0, 53, 0x9c, 0x40, 0, 0, 0, 1, 0, 0, 0, 1, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0, message.length >> 8, message.length & 0xff, ...message]
    : [0, 53, 0x9c, 0x40, (8 + message.length) >> 8, (8 + message.length) & 0xff, 0, 0, ...message];
  const proto = opts.tcp ? 6 : 17;
  const types = opts.ext ?? [];
  // Each extension header names the next one; the last names the transport.
  const ext = types.flatMap((_, i) => [types[i + 1] ?? proto, 0, 0, 0, 0, 0, 0, 0]);
  const payload = [...ext, ...l4];
  const addr = (last: number): number[] => [0xfd, 0, ...Array<number>(13).fill(0), last];
  const ip = [0x60, 0, 0, 0, payload.length >> 8, payload.length & 0xff, types[0] ?? proto, 64, ...addr(0x53), ...addr(2)];
  const eth = [2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 53, 0x86, 0xdd];
  return Uint8Array.from([...eth, ...ip, ...payload]);
}

describe('dnsPayloadOfFrame', () => {
  it('finds the message in a UDP datagram over IPv6, also behind extension headers', () => {
    for (const ext of [[], [0], [0, 60, 43]]) {
      const p = dnsPayloadOfFrame(frame6(compressed, { ext }))!;
      expect(p.transport).toBe('udp');
      expect([...p.message]).toEqual([...compressed]);
    }
    const t = dnsPayloadOfFrame(frame6(compressed, { tcp: true }))!;
    expect(t.transport).toBe('tcp');
    expect(decodeDnsMessage(t.message).questions[0]!.name).toBe('www.example.com');
  });

  it('refuses an IPv6 fragment and a cut IPv6 datagram, naming them', () => {
    expect(() => dnsPayloadOfFrame(frame6(compressed, { ext: [0, 44] }))).toThrow(expect.objectContaining({ code: 'NOT_DNS', message: expect.stringContaining('IPv6 fragment') }));
    const f = frame6(compressed);
    expect(() => dnsPayloadOfFrame(f.subarray(0, f.length - 1))).toThrow(expect.objectContaining({ code: 'NOT_DNS', message: expect.stringContaining('IPv6 payload longer than the frame') }));
    expect(() => dnsPayloadOfFrame(f.subarray(0, 30))).toThrow(expect.objectContaining({ code: 'NOT_DNS', message: expect.stringContaining('IPv6 header cut short') }));
  });

  it('finds the message in a UDP datagram, ignoring Ethernet padding', () => {
    const p = dnsPayloadOfFrame(frame(compressed, { pad: 6 }))!;
    expect(p.transport).toBe('udp');
    expect([...p.message]).toEqual([...compressed]);
  });

  it('finds the message behind an 802.1Q tag', () => {
    expect(dnsPayloadOfFrame(frame(compressed, { vlan: true }))?.message.length).toBe(compressed.length);
  });

  it('takes a complete length-prefixed message from a TCP segment', () => {
    const p = dnsPayloadOfFrame(frame(compressed, { tcp: true }))!;
    expect(p.transport).toBe('tcp');
    expect(decodeDnsMessage(p.message).questions[0]!.name).toBe('www.example.com');
  });

  it('passes on TCP segments without a whole message (handshake, split messages)', () => {
    const f = frame(compressed, { tcp: true });
    expect(dnsPayloadOfFrame(f.subarray(0, f.length - 10).map((b, i) => (i === 17 ? b - 10 : b)))).toBeUndefined();
    expect(dnsPayloadOfFrame(frame(new Uint8Array(0), { tcp: true }).subarray(0, 54).map((b, i) => (i === 17 ? 40 : b)))).toBeUndefined();
  });

  it('refuses frames that are not DNS responses, saying why', () => {
    expect(() => dnsPayloadOfFrame(frame(compressed, { srcPort: 54 }))).toThrow(expect.objectContaining({ code: 'NOT_DNS', message: expect.stringContaining('source port') }));
    expect(() => dnsPayloadOfFrame(Uint8Array.of(1, 2, 3))).toThrow(expect.objectContaining({ code: 'NOT_DNS' }));
    const arp = frame(compressed);
    arp[12] = 0x08;
    arp[13] = 0x06;
    expect(() => dnsPayloadOfFrame(arp)).toThrow(expect.objectContaining({ code: 'NOT_DNS', message: expect.stringContaining('0x806') }));
  });

  it('any garbage frame either yields a payload or throws DnsParseError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), fc.constantFrom('ipv4', 'ipv6', 'any'), (bytes, kind) => {
        const f = Uint8Array.from(bytes);
        if (kind !== 'any' && f.length > 14) {
          f[12] = kind === 'ipv4' ? 0x08 : 0x86;
          f[13] = kind === 'ipv4' ? 0 : 0xdd;
        }
        try {
          dnsPayloadOfFrame(f);
        } catch (e) {
          expect(e).toBeInstanceOf(DnsParseError);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
