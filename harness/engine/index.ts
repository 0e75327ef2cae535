/**
 * Integration harness: runs real n8n workflow JSON through n8n-core's own
 * execution engine (`WorkflowExecute`), with an in-memory credentials helper, real
 * outbound HTTP and n8n-core's `BinaryDataService` in either `default`
 * (in-memory base64) or `filesystem` (files on disk) mode.
 *
 * Nodes and credentials are loaded the way n8n loads a community package (see
 * `loadPackageTypes`).
 *
 * Runs are serialised: n8n-core resolves its services (binary data, logger,
 * instance settings, ...) from one process-wide DI container, so two runs with
 * different binary modes must not overlap.
 */
export * from './core';
export * from './credentials';
export * from './nodes';
export * from './run';
export * from './types';
