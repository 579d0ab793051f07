// Where cli.ts imports it from; the module is features/wireguard/part.ts.
export { removeWireGuardDevice } from '../features/wireguard/part';
