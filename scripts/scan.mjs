// Runs the two legs of n8n's verification scan and the canary (see scripts/scan.sh).
//   node scripts/scan.mjs <toolDir> <sourceDir> <tarballDir> <canaryDir>
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [toolDir, sourceDir, tarballDir, canaryDir] = process.argv.slice(2);
const scanner = await import(
	pathToFileURL(path.join(toolDir, 'node_modules/@n8n/scan-community-package/scanner/scanner.mjs')).href
);

const legs = [
	{ name: 'source', dir: sourceDir, patterns: scanner.SOURCE_FILE_PATTERNS, expect: true },
	{ name: 'tarball', dir: tarballDir, patterns: ['**/*.js', 'package.json'], expect: true },
	{ name: 'canary (setTimeout added)', dir: canaryDir, patterns: scanner.SOURCE_FILE_PATTERNS, expect: false },
];

let passed = 0;
let failed = 0;
for (const leg of legs) {
	const result = await scanner.analyzePackage(leg.dir, leg.patterns);
	const ok = result.passed === leg.expect;
	ok ? passed++ : failed++;
	console.log(
		`${ok ? 'PASS' : 'FAIL'} scan ${leg.name}: ${result.passed ? 'no violations' : result.message}` +
			(leg.expect ? '' : ' (expected to be refused)'),
	);
	if (!result.passed && (leg.expect || !ok)) console.log(result.details ?? '');
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
