/**
 * FQDN policy support: DNS responses to the local pods selected by FQDN rules are paused and sent
 * to the agent, which learns the addresses (the rules' flows read them through
 * `FlowContext.fqdnAddresses`) before it lets the response continue.
 */
import type { Flow } from '@switchyard/openflow/codec';
import { CookieCategory, makeCookie } from '../cookie';
import type { Feature } from '../feature';
import { defineKind, nodeObject, type FqdnIntercept } from '../objects';
import { CONTROLLER_ID, PACKETIN_CATEGORY, PACKETIN_METER_ID_DNS, PRIORITY, PROTO_TCP, PROTO_UDP, TargetOFPortField, matchField } from '../fields';
import type { Pipeline } from '../tables';
import type { NodeConfig } from '../state';
import { IP, IPV6, flow, goto, hasIpv6, withOptions } from './common';

/** The DNS intercept of the node's FQDN spec (key `node`). */
export const fqdnInterceptKind = defineKind({ name: 'fqdnIntercept', enumerate: (s) => nodeObject(s.fqdn && { conjId: s.fqdn.conjId, podOfports: s.fqdn.podOfports }) });

/** Settings of the FQDN feature. */
export interface FqdnOptions {
  /** Rate-limit the DNS packet-ins through meter PACKETIN_METER_ID_DNS (the agent installs it). */
  packetInMeters?: boolean;
}

const legacyFqdnOptions = (cfg: NodeConfig): FqdnOptions => ({ packetInMeters: cfg.packetInMeters ?? false });

/** FQDN: DNS responses to selected pods are paused and sent to the agent before delivery. */
export function fqdnFlows(p: Pipeline, cfg: NodeConfig, spec: FqdnIntercept, controllerId = CONTROLLER_ID, opts: FqdnOptions = legacyFqdnOptions(cfg)): Flow[] {
  const c = makeCookie(cfg.round, CookieCategory.NetworkPolicy);
  const t = p.id('AntreaPolicyIngressRule');
  const id = spec.conjId;
  const flows: Flow[] = [
    flow(t, PRIORITY.dnsIntercept, { conjId: id }, [
      ...(opts.packetInMeters ? [{ type: 'meter' as const, id: PACKETIN_METER_ID_DNS }] : []),
      { type: 'controller', reason: 'no_match', id: controllerId, userdata: Uint8Array.of(PACKETIN_CATEGORY.DNS), pause: true },
      goto(p.id('IngressMetric')),
    ], c),
  ];
  // DNS responses of either family on a dual-stack node (a resolver may be reached over IPv6).
  for (const fam of hasIpv6(cfg) ? [IP, IPV6] : [IP]) {
    flows.push(
      flow(t, PRIORITY.dnsIntercept, { ...fam, ipProto: PROTO_UDP, udpSrc: 53 }, [{ type: 'conjunction', id, clause: 1, nClauses: 2 }], c),
      flow(t, PRIORITY.dnsIntercept, { ...fam, ipProto: PROTO_TCP, tcpSrc: 53 }, [{ type: 'conjunction', id, clause: 1, nClauses: 2 }], c),
    );
  }
  for (const port of spec.podOfports) flows.push(flow(t, PRIORITY.dnsIntercept, matchField(TargetOFPortField, port), [{ type: 'conjunction', id, clause: 2, nClauses: 2 }], c));
  return flows;
}

const forms = withOptions(
  (optionsOf): Feature => ({
    name: 'fqdn',
    tables: () => ['AntreaPolicyIngressRule', 'IngressMetric'],
    kinds: [fqdnInterceptKind],
    perObject: { fqdnIntercept: (ctx, spec) => ({ flows: fqdnFlows(ctx.pipeline, ctx.config, spec, ctx.controllerId, optionsOf(ctx.config)) }) },
  }),
  (o: FqdnOptions) => ({ packetInMeters: o.packetInMeters ?? false }),
  legacyFqdnOptions,
);

/** DNS interception for FQDN rules (needs the Antrea-native policy tables: list it with `networkPolicy({ antreaPolicy: true })`). */
export const fqdn: (opts?: FqdnOptions) => Feature = forms.factory;

/** @deprecated On when NodeConfig's `enableAntreaPolicy` is, reads `packetInMeters` from it; use {@link fqdn}. */
export const fqdnFeature: Feature = { ...forms.constant, enabled: (cfg) => cfg.enableAntreaPolicy ?? false };
