// Where cli.ts imports it from; the module is features/multicluster/gateway-wireguard.ts.
export { multiclusterWireGuardDevice } from '../features/multicluster/gateway-wireguard';
