/**
 * @switchyard/ovsdb: OVSDB client (RFC 7047 + Open vSwitch extensions) with a replica cache
 * @packageDocumentation
 */
export {
  OvsdbError,
  FramingError,
  ProtocolError,
  RpcError,
  DisconnectedError,
  ClosedError,
  TimeoutError,
  SchemaValueError,
  SchemaError,
  TransactionError,
  ConflictError,
  CanceledError,
} from './errors';
// The logger and clock every Switchyard package shares, re-exported under ovsdb's names.
export type { Clock, Logger, TimerHandle } from '@switchyard/runtime';
export { systemClock } from '@switchyard/runtime';
export { JsonFramer, type JsonFramerOptions } from './jsonrpc/framer';
export { JsonRpcPeer, type JsonRpcPeerOptions, type NotificationHandler } from './jsonrpc/peer';
export {
  parseRemote,
  openStream,
  describeEndpoint,
  TransportError,
  type Remote,
  type Endpoint,
  type TlsOptions,
} from './transport';
export {
  parseSchema,
  parseColumnType,
  parseBaseType,
  describeType,
  isUuid,
  type AtomicType,
  type Atom,
  type BaseType,
  type ColumnType,
  type ColumnSchema,
  type TableSchema,
  type DatabaseSchema,
} from './schema';
export {
  NamedUuid,
  namedUuid,
  encodeAtom,
  decodeAtom,
  encodeDatum,
  decodeDatum,
  applyDiff,
  diffDatum,
  datumEquals,
  compareAtoms,
  defaultDatum,
  type AtomInput,
  type Datum,
  type DatumOptions,
  type ValueContext,
} from './values';
export {
  ops,
  operationsFor,
  encodeOperation,
  decodeTransactResult,
  decodeRow,
  unwrap,
  type OperationBuilders,
  type Operation,
  type InsertOp,
  type SelectOp,
  type UpdateOp,
  type MutateOp,
  type DeleteOp,
  type WaitOp,
  type CommitOp,
  type AbortOp,
  type CommentOp,
  type AssertOp,
  type Condition,
  type ConditionFunction,
  type Mutation,
  type Mutator,
  type DecodedRow,
  type OperationResult,
  type OperationError,
  type TransactionResult,
  type TransactionSuccess,
  type TransactionFailure,
} from './ops';
export {
  Connection,
  backoffDelay,
  type ConnectionOptions,
  type ConnectionEvents,
  type BackoffOptions,
} from './connection';
export {
  OvsdbClient,
  type OvsdbClientOptions,
  type OvsdbClientEvents,
  type MonitorRequest,
  type MonitorRequests,
  type MonitorSelect,
  type MonitorCondition,
  type MonitorSinceResult,
  type RowUpdate,
  type RowUpdate2,
  type TableUpdates,
  type TableUpdates2,
  type TransactOptions,
} from './client';
export {
  Replica,
  rowEquals,
  type ReplicaOptions,
  type ReplicaTableOptions,
  type ReplicaEvents,
  type ReplicaRow,
  type ReplicaTransaction,
  type ReplicaTransactionResult,
  type AnyTables,
  type TableName,
  type TableHandlers,
} from './replica';
export {
  VSwitch,
  VSwitchError,
  bundledVswitchSchema,
  type BridgeSpec,
  type PortSpec,
  type PortInfo,
  type Ensured,
  type InterfaceType,
  type OpenFlowProtocol,
} from './vswitch/index';
export * from './gen/vswitch';
export { vswitchSchemaJson } from './gen/vswitch-schema';
