/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports, no-console -- test code: runs under jest on Node, is never shipped or loaded by n8n */
/** n8n-core's services for the harness: its own DI container, a quiet logger, the binary data service. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BinaryDataService, BinaryDataConfig, ErrorReporter, InstanceSettings } from 'n8n-core';
import type { Logger as LoggerInterface } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';
import type { BinaryMode } from './types';

// ---------------------------------------------------------------------------
// n8n-core's own copies of its internal dependencies
// ---------------------------------------------------------------------------

/**
 * n8n-core ships its own nested `@n8n/di` and `@n8n/backend-common` (newer
 * than the copies hoisted to the top-level node_modules by other dev tools).
 * Services must be registered in the container instance n8n-core itself
 * resolves from, so load these relative to n8n-core, through the regular
 * `require` (which keeps one module instance under jest as well).
 */
type Constructor<T> = abstract new (...args: never[]) => T;
interface DiContainer {
	get<T>(type: Constructor<T>): T;
	set<T>(type: Constructor<T>, instance: T): void;
	has(type: Constructor<unknown>): boolean;
}

const coreDir = path.dirname(require.resolve('n8n-core/package.json'));
function requireFromCore<T>(moduleName: string): T {
	return require(require.resolve(moduleName, { paths: [coreDir] })) as T;
}
const { Container } = requireFromCore<{ Container: DiContainer }>('@n8n/di');
const { Logger: CoreLogger } = requireFromCore<{ Logger: Constructor<LoggerInterface> }>(
	'@n8n/backend-common',
);

// ---------------------------------------------------------------------------
// n8n-core services
// ---------------------------------------------------------------------------

type LogLevel = 'error' | 'warn' | 'info' | 'debug';
const LOG_LEVELS: LogLevel[] = ['error', 'warn', 'info', 'debug'];

/** n8n-core's logs during runs, printed only when N8N_HARNESS_LOG=<level> is set. */
function createQuietLogger(): LoggerInterface & { scoped(): LoggerInterface } {
	const printLevel = process.env.N8N_HARNESS_LOG as LogLevel | undefined;
	const maxIndex = printLevel ? LOG_LEVELS.indexOf(printLevel) : -1;
	const log = (level: LogLevel) => (message: string, meta?: unknown) => {
		if (LOG_LEVELS.indexOf(level) <= maxIndex) {
			console.log(`[n8n-core ${level}] ${message}`, meta ?? '');
		}
	};
	const logger = {
		error: log('error'),
		warn: log('warn'),
		info: log('info'),
		debug: log('debug'),
		scoped: () => logger,
	};
	return logger;
}

interface HarnessState {
	rootDir: string;
	logger: LoggerInterface;
}

let state: HarnessState | undefined;

export function ensureCoreServices(): HarnessState {
	if (state) return state;

	const rootDir = mkdtempSync(path.join(tmpdir(), 'n8n-harness-'));
	const logger = createQuietLogger();
	Container.set(CoreLogger, logger);
	LoggerProxy.init(logger);

	// A real InstanceSettings, with its settings file in the temp dir rather
	// than in ~/.n8n (node contexts read instanceId / hmac secret from it).
	const n8nFolder = path.join(rootDir, '.n8n');
	const instanceSettings = new InstanceSettings(
		{
			n8nFolder,
			userHome: rootDir,
			encryptionKey: randomBytes(24).toString('base64'),
			enforceSettingsFilePermissions: false,
		} as unknown as ConstructorParameters<typeof InstanceSettings>[0],
		logger as unknown as ConstructorParameters<typeof InstanceSettings>[1],
	);
	Container.set(InstanceSettings, instanceSettings);

	state = { rootDir, logger };
	return state;
}

/**
 * Installs a BinaryDataService for `mode` into n8n-core's container, storing
 * files (filesystem mode) under `storagePath`.
 */
export async function installBinaryDataService(
	mode: BinaryMode,
	storagePath: string,
): Promise<BinaryDataService> {
	const { logger } = ensureCoreServices();
	const config = {
		availableModes: ['default', 'filesystem'],
		mode,
		localStoragePath: storagePath,
		signingSecret: randomBytes(16).toString('hex'),
		dbMaxFileSize: 512,
	} as unknown as BinaryDataConfig;
	Container.set(BinaryDataConfig, config);
	const service = new BinaryDataService(
		config,
		Container.get(ErrorReporter),
		logger as unknown as ConstructorParameters<typeof BinaryDataService>[2],
	);
	await service.init();
	Container.set(BinaryDataService, service);
	return service;
}

/** Removes the harness temp directory (binary files, settings). Call from afterAll. */
export function disposeHarness(): void {
	if (!state) return;
	rmSync(state.rootDir, { recursive: true, force: true });
	state = undefined;
}
