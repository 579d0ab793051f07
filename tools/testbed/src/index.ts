/**
 * @switchyard/testbed: isolated Open vSwitch instances, network namespaces and veth pods for
 * integration tests and the lab. Everything is named with a run-unique prefix and recorded, so
 * cleanup() (or the next run's reaper, after a crash) removes it all.
 * @packageDocumentation
 */
export { run, start, waitFor, eventually, eventuallyPasses, inNetns, CommandError, WaitTimeoutError, type EventuallyOptions, type NotYet, type ValueCallback, type RunOptions, type RunResult } from './exec';
export { Testbed, ovsDaemons, type Netns, type OvsDaemons, type OvsInstance, type Pod, type TestbedOptions } from './testbed';
export { reapStale, cleanupRecord, killNetnsProcesses } from './reap';
export { isAlive, pidfileProcess, processRef, readRecords, registryDir, signalProcess, type ProcessRef, type RunRecord } from './registry';
export { assertIntegrationReady, DATAPATH_RMEM_DEFAULT, missingRequirements, rmemShortfall } from './preflight';
export { flowChanges, flowSnapshot, parseFlowAges, type FlowChanges, type FlowSnapshot } from './flows';
export { throughputDisruptions, type Disruptions } from './throughput';
export { freePort, portIsFree, ephemeralLow } from './ports';
export { parsePromText, PromTextError, type PromFamily, type PromSample } from './prom-text';
