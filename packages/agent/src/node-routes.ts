// Where cli.ts imports it from; the module is features/routes/node-routes.ts.
export { nodeFacts } from './features/routes/node-routes';
