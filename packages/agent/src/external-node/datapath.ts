// Where cli.ts imports it from; the module is features/external-node/datapath.ts.
export { ExternalNodeDatapath } from '../features/external-node/datapath';
