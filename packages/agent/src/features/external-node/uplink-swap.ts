/**
 * The uplink swap of ExternalNode mode: the host interface `<if>` is renamed `<if>~` and attached
 * to OVS as the uplink, an OVS internal port takes the name `<if>`, its MAC and MTU, and the
 * addresses (IPv4, and IPv6 of global scope) and routes move onto it. Every step is recorded in a journal file before the next
 * one begins, so a later start finishes or undoes a swap an earlier run did not complete; each
 * step is safe to run again.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { writeFileDurableSync } from '@switchyard/durable-file';
import { join } from 'node:path';
import type { VSwitch } from '@switchyard/ovsdb';
import { silentLogger, type Logger } from '@switchyard/runtime';
import { AgentError } from '../../errors';
import type { HostAddress, HostLink, HostLinks, HostRoute } from './host-links';

/** Steps of the swap, in order; the journal records the last one completed. */
export const SWAP_STEPS = ['planned', 'renamed', 'uplinkAttached', 'hostPortCreated', 'addressesMoved'] as const;
export type SwapStep = (typeof SWAP_STEPS)[number];

/** The interface as it was before the swap: what uninstall puts back. */
export interface OriginalInterface {
  name: string;
  mac: string;
  mtu: number;
  /** The PROMISC flag before the swap (absent in journals written before it was recorded). */
  promisc?: boolean;
  addresses: HostAddress[];
  routes: HostRoute[];
}

/** One interface's journal entry. */
export interface SwapRecord {
  step: SwapStep;
  bridge: string;
  original: OriginalInterface;
}

/** The two OVS ports of a swapped interface. */
export interface SwappedInterface {
  name: string;
  uplinkName: string;
  uplinkOfport: number;
  pairOfport: number;
  addresses: HostAddress[];
}

/** external_ids key/values the swap writes on its ports (how a later start recognizes them). */
export const EXTERNAL_ID_TYPE = 'switchyard-type';
const UPLINK_TYPE = 'uplink';
const HOST_TYPE = 'host-internal';

export interface UplinkSwapOptions {
  links: HostLinks;
  vswitch: VSwitch;
  bridge: string;
  /** Directory of the journal files (one per interface). */
  journalDir: string;
  /** Called after each step is recorded; tests use it to stop a run at a step. */
  onStep?: (name: string, step: SwapStep) => void | Promise<void>;
  /** How long undoing waits for ovs-vswitchd to let go of the ports it removes (default 10 s). */
  releaseTimeoutMs?: number;
  logger?: Logger;
}

/** The OVS uplink name of interface `name` (Antrea's `<if>~`). */
export const uplinkNameOf = (name: string): string => `${name}~`;

/** Moves host interfaces onto OVS and back. */
export class UplinkSwap {
  private readonly log: Logger;

  constructor(private readonly o: UplinkSwapOptions) {
    this.log = o.logger ?? silentLogger;
  }

  /** Interfaces with a journal entry: swapped, or left half-way by an earlier run. */
  recorded(): Map<string, SwapRecord> {
    const out = new Map<string, SwapRecord>();
    if (!existsSync(this.o.journalDir)) return out;
    for (const f of readdirSync(this.o.journalDir)) {
      if (!f.endsWith('.json')) continue;
      const rec = JSON.parse(readFileSync(join(this.o.journalDir, f), 'utf8')) as SwapRecord;
      out.set(rec.original.name, rec);
    }
    return out;
  }

  /**
   * Swaps `name` onto OVS, or finishes the swap an earlier run recorded. On a failure every step
   * this call or the earlier run took is undone and the error rethrown.
   */
  async install(name: string): Promise<SwappedInterface> {
    const rec = this.recorded().get(name) ?? (await this.plan(name));
    try {
      return await this.forward(rec);
    } catch (e) {
      this.log.warn({ interface: name, step: rec.step, err: e instanceof Error ? e.message : String(e) }, 'uplink swap failed: undoing it');
      await this.undo(rec).catch((u: unknown) => this.log.error({ interface: name, err: u instanceof Error ? u.message : String(u) }, 'undoing the uplink swap failed'));
      if (e instanceof AgentError) throw e;
      throw new AgentError('EXTERNAL_NODE_SWAP_FAILED', `moving interface ${name} onto OVS failed at step after "${rec.step}": ${e instanceof Error ? e.message : String(e)}`, name, 'spec.interfaces[].name', { cause: e });
    }
  }

  /** Puts `name` back as it was before the swap (no-op when nothing is recorded for it). */
  async uninstall(name: string): Promise<boolean> {
    const rec = this.recorded().get(name);
    if (!rec) return false;
    await this.undo(rec);
    return true;
  }

  /** Reads the interface and records the plan (step `planned`) before anything changes. */
  private async plan(name: string): Promise<SwapRecord> {
    const { links } = this.o;
    const link = await links.link(name);
    if (!link) throw new AgentError('EXTERNAL_NODE_INTERFACE', `interface ${name} is not on this host`, name, 'spec.interfaces[].name');
    if (link.master !== undefined) {
      throw new AgentError('EXTERNAL_NODE_INTERFACE', `interface ${name} is enslaved to ${link.master}; ExternalNode needs a standalone uplink`, name, 'spec.interfaces[].name');
    }
    const onOvs = (await this.o.vswitch.findPortsByExternalIds({})).find((p) => p.name === name);
    if (onOvs) {
      throw new AgentError('EXTERNAL_NODE_INTERFACE', `interface ${name} is already a port of an OVS bridge; ExternalNode needs an uplink no bridge holds`, name, 'spec.interfaces[].name');
    }
    if (await links.link(uplinkNameOf(name))) {
      throw new AgentError('EXTERNAL_NODE_INTERFACE', `interface ${uplinkNameOf(name)} already exists without a journal entry; refusing to swap ${name}`, uplinkNameOf(name), 'spec.interfaces[].name');
    }
    const rec: SwapRecord = {
      step: 'planned',
      bridge: this.o.bridge,
      original: { name, mac: link.mac, mtu: link.mtu, promisc: link.promisc, addresses: await links.addresses(name), routes: await links.routes(name) },
    };
    this.save(rec);
    return rec;
  }

  private async forward(rec: SwapRecord): Promise<SwappedInterface> {
    const { links, vswitch, bridge } = this.o;
    const { name, mac, mtu, addresses, routes } = rec.original;
    const uplink = uplinkNameOf(name);
    const reached = (s: SwapStep) => SWAP_STEPS.indexOf(rec.step) >= SWAP_STEPS.indexOf(s);
    const done = async (s: SwapStep) => {
      if (!reached(s)) {
        rec.step = s;
        this.save(rec);
        this.log.info({ interface: name, step: s }, 'uplink swap step done');
      }
      await this.o.onStep?.(name, s);
    };

    await done('planned');
    // 1. The uplink gives up its name (the kernel wants it down for that).
    if (!(await links.link(uplink))) await links.rename(name, uplink);
    await links.configure(uplink, { mtu });
    await done('renamed');
    // 2. It becomes the bridge's uplink port.
    await vswitch.ensurePort(bridge, uplink, { externalIds: { [EXTERNAL_ID_TYPE]: UPLINK_TYPE, 'switchyard-interface': name } });
    const uplinkOfport = await vswitch.waitForOfport(uplink);
    await done('uplinkAttached');
    // 3. An internal port with the original name and MAC stands in for it on the host.
    await vswitch.ensurePort(bridge, name, { type: 'internal', externalIds: { [EXTERNAL_ID_TYPE]: HOST_TYPE, 'switchyard-interface': name } });
    const pairOfport = await vswitch.waitForOfport(name);
    await links.configure(name, { mac, mtu });
    await done('hostPortCreated');
    // 4. Addresses, then the routes that need them, move across.
    for (const a of addresses) {
      await links.deleteAddress(uplink, a);
      // The address only changes links on this host: no duplicate address detection for IPv6.
      await links.addAddress(name, a, true);
    }
    for (const r of routes) await links.replaceRoute(name, r);
    await done('addressesMoved');
    return { name, uplinkName: uplink, uplinkOfport, pairOfport, addresses };
  }

  /**
   * Reverses whatever part of the swap happened. Each step checks the host first, so it also
   * serves a journal whose recorded step is behind what the earlier run actually did. Returns once
   * ovs-vswitchd has let go of the uplink (its PROMISC flag is as before the swap).
   */
  private async undo(rec: SwapRecord): Promise<void> {
    const { links, vswitch } = this.o;
    const { name, mac, mtu, addresses, routes } = rec.original;
    const uplink = uplinkNameOf(name);
    const uplinkLink: HostLink | undefined = await links.link(uplink);
    // Both ports leave the bridge, and the switch closes them before the host's links change:
    // ovs-vswitchd restores the flags it set (PROMISC) by device name when it closes a port, so a
    // rename before that leaves the flag on the renamed link, and an exit before that on whatever
    // link has the name then. The internal port goes with its addresses.
    const deleted = [await vswitch.deletePort(rec.bridge, name), await vswitch.deletePort(rec.bridge, uplink)];
    const held = uplinkLink ?? (await links.link(name));
    const flagsDiffer = held !== undefined && rec.original.promisc !== undefined && held.promisc !== rec.original.promisc;
    // Also when an earlier attempt deleted the ports and the switch has not closed them yet.
    if (deleted.includes(true) || flagsDiffer) await this.switchReleased(held?.name ?? uplink);
    if (held) await this.checkFlags(rec.original, held.name);
    // `name` is ours only while the uplink is renamed (the switch's tap went when it closed it).
    if (uplinkLink && (await links.link(name))) await links.deleteLink(name);
    if (uplinkLink) await links.rename(uplink, name);
    await links.configure(name, { mac, mtu });
    for (const a of addresses) await links.addAddress(name, a);
    for (const r of routes) await links.replaceRoute(name, r);
    this.drop(name);
    this.log.info({ interface: name, step: rec.step }, 'uplink swap undone');
  }

  /** Waits until ovs-vswitchd has applied the port deletions (as `ovs-vsctl --wait`). */
  private async switchReleased(link: string): Promise<void> {
    const timeoutMs = this.o.releaseTimeoutMs ?? 10_000;
    try {
      await this.o.vswitch.waitForSwitch({ timeoutMs });
    } catch (e) {
      throw new AgentError('EXTERNAL_NODE_UPLINK_HELD', `ovs-vswitchd did not apply the removal of ${link} from bridge ${this.o.bridge} within ${timeoutMs} ms (is it running?): ${e instanceof Error ? e.message : String(e)}`, link, 'bridge', { cause: e });
    }
  }

  /** The link's PROMISC flag is as it was before the swap, now that the switch has closed it. */
  private async checkFlags(original: OriginalInterface, link: string): Promise<void> {
    if (original.promisc === undefined) return;
    const now = await this.o.links.link(link);
    if (now && now.promisc !== original.promisc) {
      throw new AgentError('EXTERNAL_NODE_UPLINK_HELD', `interface ${link} (${original.name}) has flag PROMISC ${now.promisc ? 'set' : 'cleared'} after ovs-vswitchd closed it; before the swap it was ${original.promisc ? 'set' : 'cleared'}`, link, 'spec.interfaces[].name');
    }
  }

  private file(name: string): string {
    return join(this.o.journalDir, `${encodeURIComponent(name)}.json`);
  }

  /** Durable before the next step starts: temp file synced, renamed over the entry, directory synced. */
  private save(rec: SwapRecord): void {
    mkdirSync(this.o.journalDir, { recursive: true });
    writeFileDurableSync(this.file(rec.original.name), JSON.stringify(rec), { mode: 0o600 });
  }

  private drop(name: string): void {
    rmSync(this.file(name), { force: true });
  }
}
