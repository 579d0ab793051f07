/**
 * The OpenFlow meters parts keep on the switch beside their flows (Egress bandwidth): each meter is
 * in before the first flow naming it (a flow naming a missing meter is refused) and is put back
 * after ovs-vswitchd restarts, before the flows are replayed.
 */
import { OfSwitchError, type MeterBand, type MeterFlag, type OfMessage } from '@switchyard/openflow';

/** What a meter is: its flags and bands, as a METER_MOD carries them. */
export interface MeterConfig {
  flags: MeterFlag[];
  bands: MeterBand[];
}

/** The switch as the meter table uses it: one message, then a barrier, rejecting on the switch's error. */
export interface MeterTransport {
  flowLike(msg: OfMessage): Promise<void>;
}

const same = (a: MeterConfig, b: MeterConfig): boolean => JSON.stringify(a) === JSON.stringify(b);

export class MeterTable {
  /** The meters the switch holds, as far as this run knows (installed or adopted). */
  private readonly installed = new Map<number, MeterConfig>();

  constructor(private readonly transport: () => MeterTransport) {}

  /** The meter of an id, as installed. */
  get(id: number): MeterConfig | undefined {
    return this.installed.get(id);
  }

  /** The ids installed, in order. */
  ids(): number[] {
    return [...this.installed.keys()].sort((a, b) => a - b);
  }

  /**
   * Makes the switch's meter `id` this one: nothing when it already is, a modify when it was
   * installed otherwise, else an add (a modify when the switch holds one this run did not know of).
   */
  async set(id: number, cfg: MeterConfig): Promise<void> {
    const known = this.installed.get(id);
    if (known && same(known, cfg)) return;
    if (known) await this.send('modify', id, cfg);
    else await this.addOrModify(id, cfg, true);
    this.installed.set(id, cfg);
  }

  /**
   * Takes a meter a previous run of the agent installed (its record says so) as it is: added when the
   * switch lacks it, left untouched when the switch has it (no modify, so its bucket and counters stay).
   */
  async adopt(id: number, cfg: MeterConfig): Promise<void> {
    await this.addOrModify(id, cfg, false);
    this.installed.set(id, cfg);
  }

  /** Deletes meter `id` (after the flows naming it are gone); a meter the switch lacks is deleted already. */
  async delete(id: number): Promise<void> {
    try {
      await this.send('delete', id, { flags: [], bands: [] });
    } catch (e) {
      if (!(e instanceof OfSwitchError && e.codeName === 'OFPMMFC_UNKNOWN_METER')) throw e;
    }
    this.installed.delete(id);
  }

  /** After ovs-vswitchd restarted (it lost every meter): every meter again, before the flows go back. */
  async replay(): Promise<void> {
    for (const [id, cfg] of this.installed) await this.addOrModify(id, cfg, true);
  }

  private async addOrModify(id: number, cfg: MeterConfig, modifyExisting: boolean): Promise<void> {
    try {
      await this.send('add', id, cfg);
    } catch (e) {
      if (!(e instanceof OfSwitchError && e.codeName === 'OFPMMFC_METER_EXISTS')) throw e;
      if (modifyExisting) await this.send('modify', id, cfg);
    }
  }

  private send(command: 'add' | 'modify' | 'delete', meterId: number, cfg: MeterConfig): Promise<void> {
    return this.transport().flowLike({ type: 'meterMod', command, meterId, flags: cfg.flags, bands: cfg.bands });
  }
}
