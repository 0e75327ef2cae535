import { config } from '@n8n/node-cli/eslint';

// The package's shipped code (nodes/, credentials/, package.json) follows the verified-node rules;
// the development tooling around it (tests, emulator, scripts, benchmark) runs only on developer machines.
export default [
	{ ignores: ['test/**', 'emulator/**', 'bench/**', 'scripts/**', 'examples/**', 'gulpfile.js', 'jest.config.js'] },
	...config,
];
