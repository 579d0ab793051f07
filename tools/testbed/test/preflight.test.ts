import { DATAPATH_RMEM_DEFAULT, rmemShortfall } from '../src/preflight';

describe('rmemShortfall', () => {
  it("names the setting, its value and the script that raises it when the default receive buffer is Linux's 208 KiB", () => {
    expect(rmemShortfall(212_992)).toBe(
      `net.core.rmem_default of at least ${DATAPATH_RMEM_DEFAULT} (it is 212992; the userspace datapath's AF_PACKET sockets drop frames below it; scripts/ensure-system.sh raises it)`,
    );
  });

  it('accepts 4 MiB and more', () => {
    expect(DATAPATH_RMEM_DEFAULT).toBe(4_194_304);
    expect(rmemShortfall(4_194_304)).toBeUndefined();
    expect(rmemShortfall(8_388_608)).toBeUndefined();
  });
});
