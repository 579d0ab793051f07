/** What the local API reads of a node's switch, the same for the node agent and the ExternalNode agent. */
import type { SwitchConnection } from '@switchyard/openflow';
import type { NodeFlows, TableName } from '@switchyard/openflow-pipeline';
import { ops, unwrap, type OvsdbClient } from '@switchyard/ovsdb';
import type { AgentIntrospection } from './api';

/** The switch a node runs: its OVSDB and OpenFlow connections and the flows last installed. */
export interface IntrospectedSwitch {
  readonly ovsdb: OvsdbClient;
  readonly openflow: SwitchConnection;
  readonly flows: { readonly nodeFlows: NodeFlows | undefined };
}

/** Installed flows, table names and ids of the current pipeline, and the OVS version of `sw` (read at each call). */
export function switchIntrospection(sw: () => IntrospectedSwitch): Pick<AgentIntrospection, 'installedFlows' | 'tableName' | 'tableId' | 'ovsVersion'> {
  const pipeline = () => sw().flows.nodeFlows?.pipeline;
  return {
    installedFlows: () => sw().openflow.dumpFlows(),
    tableName: (id) => pipeline()?.nameOf(id),
    tableId: (name) => {
      try {
        return pipeline()?.id(name as TableName);
      } catch {
        return undefined; // not a table of this pipeline
      }
    },
    ovsVersion: async () => {
      // Open_vSwitch.ovs_version is written by ovs-ctl, not by ovs-vswitchd: ask the switch (OFPMP_DESC).
      const r = unwrap(await sw().ovsdb.transact('Open_vSwitch', [ops.select('Open_vSwitch', [], ['ovs_version'])]));
      const res = r.results[0];
      const v = res?.op === 'select' ? res.rows[0]?.ovs_version : undefined;
      if (typeof v === 'string' && v) return v;
      const desc = await sw().openflow.multipart({ kind: 'desc' });
      return desc.kind === 'desc' ? desc.sw : '';
    },
  };
}
