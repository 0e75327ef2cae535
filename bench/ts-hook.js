'use strict';
/**
 * Minimal require hook for the benchmark workers: lets `require()` load TypeScript files
 * (the n8n-core engine harness in harness/engine) by transpiling them with the
 * `typescript` package's transpileModule. No type checking; that is the job of the tests.
 */
const fs = require('node:fs');
const ts = require('typescript');

const compilerOptions = {
	module: ts.ModuleKind.CommonJS,
	target: ts.ScriptTarget.ES2021,
	esModuleInterop: true,
	resolveJsonModule: true,
	inlineSourceMap: true,
};

require.extensions['.ts'] = function loadTypeScript(module, filename) {
	const source = fs.readFileSync(filename, 'utf8');
	const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
	module._compile(outputText, filename);
};
