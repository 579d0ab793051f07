import fc from 'fast-check';
import { bundleFlags, decodeMessage, encodeMessage, OfDecodeError, toHex, Writer, writeBundleAdd, writeMessage, type OfMessage } from '../src/codec';
import { MESSAGE_CASES as CASES } from './fixtures/messages-table';

// ovs-ofctl decoding the same bytes: test-integration/ofctl-oracle.test.ts.
describe('messages: we decode what we encode', () => {
  it.each(CASES)('%s', (_name, msg) => {
    const bytes = encodeMessage(msg, 0x42);
    const back = decodeMessage(bytes);
    expect(back.xid).toBe(0x42);
    if (msg.type === 'error') {
      expect(back).toMatchObject({ type: 'error', typeName: 'OFPET_BAD_ACTION', codeName: 'OFPBAC_BAD_OUT_GROUP' });
    } else if (msg.type === 'flowMod' && (msg.command === 'delete' || msg.command === 'deleteStrict')) {
      expect(back).toMatchObject({ type: 'flowMod', command: msg.command });
    } else {
      expect(back).toEqual({ ...msg, xid: 0x42 });
    }
  });
});

describe('decoder robustness (fuzz)', () => {
  const valid = CASES.map(([, m]) => encodeMessage(m, 7));

  function decodeOrTypedError(b: Uint8Array): void {
    try {
      decodeMessage(b);
    } catch (e) {
      if (!(e instanceof OfDecodeError)) throw e;
    }
  }

  it('random bytes decode or fail with OfDecodeError, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.integer({ min: 0, max: 40 }), (b, type) => {
        const m = new Uint8Array(b);
        if (m.length >= 8) {
          m[0] = 6;
          m[1] = type;
          m[2] = m.length >> 8;
          m[3] = m.length & 0xff;
        }
        decodeOrTypedError(m);
      }),
      { numRuns: 3000 },
    );
  });

  it('truncated and bit-flipped valid messages decode or fail with OfDecodeError', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: valid.length - 1 }), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 }), (i, cut, pos, byte) => {
        const v = valid[i]!;
        const truncated = v.slice(0, cut % (v.length + 1));
        decodeOrTypedError(truncated);
        // Keep the header length consistent so the body parsers see the truncation.
        if (truncated.length >= 8) {
          truncated[2] = truncated.length >> 8;
          truncated[3] = truncated.length & 0xff;
          decodeOrTypedError(truncated);
        }
        const flipped = v.slice();
        flipped[pos % flipped.length] = byte;
        decodeOrTypedError(flipped);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('writeBundleAdd', () => {
  const flags = { atomic: true, ordered: true };
  const viaWrapper = (msg: OfMessage, xid: number): string => {
    const w = new Writer();
    writeMessage(w, { type: 'bundleAdd', bundleId: 9, flags, message: msg }, xid);
    return toHex(w.finish());
  };
  const viaFastPath = (msg: OfMessage, xid: number): string => {
    const w = new Writer();
    writeBundleAdd(w, 9, flags, bundleFlags(flags), msg, xid);
    return toHex(w.finish());
  };
  // Every message of the table, flow-mods (the direct path) and others (the generic one) alike.
  it.each(CASES)('writes the bytes of the bundle-add wrapper: %s', (_name, msg) => {
    expect(viaFastPath(msg, 0x77)).toBe(viaWrapper(msg, 0x77));
  });

  it('keeps a flow-mod\'s own xid, buffer and out_port (the generic path)', () => {
    const flow = { table: 3, priority: 7, match: { inPort: 1 }, actions: [] };
    const own: OfMessage[] = [
      { type: 'flowMod', command: 'add', flow, xid: 5 },
      { type: 'flowMod', command: 'deleteStrict', flow, outPort: 2 },
      { type: 'flowMod', command: 'add', flow, bufferId: 1 },
    ];
    for (const m of own) expect(viaFastPath(m, 0x77)).toBe(viaWrapper(m, 0x77));
  });
});
